package functool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agenttool/agenttool"
	"github.com/agenttool/agenttool/functool"
)

func Example() {
	type weatherArgs struct {
		City string `json:"city" jsonschema:"the city to report on"`
		Days int    `json:"days,omitempty" jsonschema:"how many days ahead, 1 to 14"`
	}
	// A rule no struct tag can state goes into the inferred schema.
	schema, err := jsonschema.For[weatherArgs](nil)
	if err != nil {
		panic(err)
	}
	schema.Properties["days"].Minimum = jsonschema.Ptr(1.0)
	schema.Properties["days"].Maximum = jsonschema.Ptr(14.0)
	weather, err := functool.New("weather", "Forecast for a city.",
		func(_ context.Context, in weatherArgs) (agenttool.ToolResult, error) {
			return agenttool.OK(fmt.Sprintf("%s: sunny for %d day(s)", in.City, max(in.Days, 1))), nil
		}, &functool.Options{Schema: schema, ConcurrencySafe: true})
	if err != nil {
		panic(err)
	}
	reg, err := agenttool.NewRegistry(append(agenttool.DefaultTools(), weather)...)
	if err != nil {
		panic(err)
	}
	turn := agenttool.NewTurn(context.Background(), reg, nil)
	defer turn.Close()

	// Two weather calls: both tools are concurrency safe, so they run together.
	together, _ := turn.Run([]agenttool.ToolCall{
		{ID: "1", Name: "weather", Args: json.RawMessage(`{"city":"Oslo","days":3}`)},
		{ID: "2", Name: "weather", Args: json.RawMessage(`{"city":"Lima"}`)},
	})
	// A batch with sleep runs one call at a time, in order. A call that
	// breaks the schema (keys match case-sensitively) fails with a message
	// the model can act on; the batch goes on.
	inOrder, _ := turn.Run([]agenttool.ToolCall{
		{ID: "3", Name: "sleep", Args: json.RawMessage(`{"seconds":0}`)},
		{ID: "4", Name: "weather", Args: json.RawMessage(`{"City":"Rome"}`)},
		{ID: "5", Name: "weather", Args: json.RawMessage(`{"city":"Rome","days":30}`)},
		{ID: "6", Name: "weather", Args: json.RawMessage(`{"city":"Rome","days":2}`)},
	})
	for _, b := range append(together, inOrder...) {
		fmt.Printf("%s %s: %s%s\n", b.Call.ID, b.Status, b.Result.Output, b.Result.Error)
	}
	fmt.Println("started together:", together[0].StartedAt.Equal(together[1].StartedAt))
	// Output:
	// 1 succeeded: Oslo: sunny for 3 day(s)
	// 2 succeeded: Lima: sunny for 1 day(s)
	// 3 succeeded: Slept for 0 second(s).
	// 4 failed: "city" is required
	// 5 failed: "days" must be at most 14
	// 6 succeeded: Rome: sunny for 2 day(s)
	// started together: true
}
