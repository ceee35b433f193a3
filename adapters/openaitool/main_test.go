package openaitool_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/functool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeAPI speaks one endpoint of OpenAI's HTTP API: it answers the n-th POST
// with the n-th canned body and keeps every request body. A request it did
// not expect gets a 400 in OpenAI's error shape, which the SDK returns as
// an error.
type fakeAPI struct {
	path    string
	replies []string

	mu     sync.Mutex
	bodies [][]byte
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	f.mu.Lock()
	n := len(f.bodies)
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if err != nil || r.Method != http.MethodPost || r.URL.Path != f.path ||
		r.Header.Get("Authorization") != "Bearer test" || n >= len(f.replies) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"error":{"message":"unexpected request %d: %s %s","type":"invalid_request_error","param":null,"code":null}}`,
			n, r.Method, r.URL.Path)
		return
	}
	_, _ = io.WriteString(w, f.replies[n])
}

// body returns the i-th request body.
func (f *fakeAPI) body(t *testing.T, i int) []byte {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Greater(t, len(f.bodies), i, "request %d never came", i)
	return f.bodies[i]
}

// serve starts api on a local server and returns an SDK client that talks
// to it; the server stops when the test ends.
func serve(t *testing.T, api *fakeAPI) openai.Client {
	t.Helper()
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return newClient(srv)
}

func newClient(srv *httptest.Server) openai.Client {
	return openai.NewClient(
		option.WithBaseURL(srv.URL),
		option.WithAPIKey("test"),
		option.WithHTTPClient(srv.Client()), // srv.Close closes its idle connections
		option.WithMaxRetries(0),
	)
}

type weatherArgs struct {
	City string `json:"city" jsonschema:"the city to report on"`
	Days int    `json:"days,omitempty" jsonschema:"how many days ahead"`
}

// newRegistry holds sleep on clk and weather, a functool tool with an
// optional member.
func newRegistry(t testing.TB, clk clock.Clock) *agenttool.Registry {
	t.Helper()
	reg, err := registryOn(clk)
	require.NoError(t, err)
	return reg
}

func registryOn(clk clock.Clock) (*agenttool.Registry, error) {
	weather, err := functool.New("weather", "Forecast for a city.",
		func(_ context.Context, in weatherArgs) (agenttool.ToolResult, error) {
			return agenttool.OK(fmt.Sprintf("%s: sunny for %d day(s)", in.City, max(in.Days, 1))), nil
		}, &functool.Options{ConcurrencySafe: true})
	if err != nil {
		return nil, err
	}
	return agenttool.NewRegistry(append(agenttool.DefaultToolsWithClock(clk), weather)...)
}

// weatherSchema and strictWeatherSchema are what functool infers for
// weatherArgs, and its strict form.
const (
	weatherSchema = `{"type":"object","properties":{` +
		`"city":{"type":"string","description":"the city to report on"},` +
		`"days":{"type":"integer","description":"how many days ahead"}},"required":["city"]}`
	strictWeatherSchema = `{"type":"object","properties":{` +
		`"city":{"type":"string","description":"the city to report on"},` +
		`"days":{"type":["integer","null"],"description":"how many days ahead"}},` +
		`"required":["city","days"],"additionalProperties":false}`
)
