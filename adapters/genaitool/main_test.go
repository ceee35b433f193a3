package genaitool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/google/jsonschema-go/jsonschema"
	"go.uber.org/goleak"
	"google.golang.org/genai"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/functool"
)

// TestMain checks for leaked goroutines. OpenCensus, which the SDK's auth
// dependencies import, starts its stats worker in an init function, for
// the life of the process; it is no leak of ours.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

// weatherSchema uses every part of JSON Schema that a copy of "properties"
// alone would lose: additionalProperties, $defs with a $ref, anyOf and
// descriptions at each level.
const weatherSchema = `{
	"type": "object",
	"description": "Where and how far ahead to forecast.",
	"properties": {
		"city": {"type": "string", "description": "The city to forecast."},
		"days": {"type": "integer", "minimum": 1, "maximum": 14, "description": "Days ahead."},
		"units": {"$ref": "#/$defs/units"}
	},
	"required": ["city"],
	"additionalProperties": false,
	"$defs": {
		"units": {"description": "The unit system.", "anyOf": [{"const": "metric"}, {"const": "imperial"}]}
	}
}`

type weatherArgs struct {
	City  string `json:"city"`
	Days  int    `json:"days,omitempty"`
	Units string `json:"units,omitempty"`
}

// newRegistry holds sleep on a mock clock (a call with seconds 0 returns at
// once, and no other wait can pass unnoticed) and a functool weather tool
// with weatherSchema.
func newRegistry(tb testing.TB) *agenttool.Registry {
	tb.Helper()
	var schema jsonschema.Schema
	if err := json.Unmarshal([]byte(weatherSchema), &schema); err != nil {
		tb.Fatal(err)
	}
	weather, err := functool.New("weather", "Forecast the weather for a city.",
		func(_ context.Context, in weatherArgs) (agenttool.ToolResult, error) {
			return agenttool.OK(fmt.Sprintf("%s: sunny for %d day(s)", in.City, max(in.Days, 1))), nil
		}, &functool.Options{Schema: &schema, RejectUnknown: true, ConcurrencySafe: true})
	if err != nil {
		tb.Fatal(err)
	}
	reg, err := agenttool.NewRegistry(append(agenttool.DefaultToolsWithClock(clock.NewMock()), weather)...)
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}

// fakeGemini speaks the Gemini API's generateContent method: it answers the
// i-th request with replies[i] and keeps every request body.
type fakeGemini struct {
	srv     *httptest.Server
	replies []string

	mu       sync.Mutex
	requests [][]byte
	problems []string
}

const model = "gemini-2.5-flash"

func newFakeGemini(tb testing.TB, replies ...string) *fakeGemini {
	tb.Helper()
	f := &fakeGemini{replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	tb.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGemini) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case err != nil:
		f.problems = append(f.problems, "reading the body: "+err.Error())
	case r.Method != http.MethodPost || r.URL.Path != "/v1beta/models/"+model+":generateContent":
		f.problems = append(f.problems, "unexpected "+r.Method+" "+r.URL.Path)
	case r.Header.Get("X-Goog-Api-Key") != "test":
		f.problems = append(f.problems, "the request does not carry the API key")
	}
	n := len(f.requests)
	f.requests = append(f.requests, body)
	w.Header().Set("Content-Type", "application/json")
	if n >= len(f.replies) {
		f.problems = append(f.problems, fmt.Sprintf("request %d has no reply", n+1))
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"code":400,"message":"no more replies","status":"INVALID_ARGUMENT"}}`)
		return
	}
	_, _ = io.WriteString(w, f.replies[n])
}

// client is the real SDK client pointed at the fake.
func (f *fakeGemini) client(tb testing.TB) *genai.Client {
	tb.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend:     genai.BackendGeminiAPI,
		APIKey:      "test",
		HTTPClient:  f.srv.Client(),
		HTTPOptions: genai.HTTPOptions{BaseURL: f.srv.URL},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return client
}

func (f *fakeGemini) bodies() ([][]byte, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.requests...), append([]string(nil), f.problems...)
}
