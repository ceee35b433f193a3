package agenttool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agenttool/agenttool"
)

func ExampleNewRegistry() {
	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	if err != nil {
		panic(err)
	}
	for _, def := range reg.Definitions() {
		fmt.Println(def.Name, string(def.Parameters))
	}
	// Output:
	// sleep {"type":"object","properties":{"seconds":{"type":"integer","minimum":0,"maximum":86400,"description":"How many whole seconds to pause, from 0 to 86400 (24 hours)."}},"required":["seconds"]}
}

func ExampleRegistry_Only() {
	echo := &agenttool.FuncTool{
		ToolName:        "echo",
		ToolDescription: "Repeat the arguments back.",
		Schema:          json.RawMessage(`{"type":"object"}`),
		Fn: func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			return agenttool.OK(string(args)), nil
		},
		Safe: true,
	}
	reg, err := agenttool.NewRegistry(append(agenttool.DefaultTools(), echo)...)
	if err != nil {
		panic(err)
	}
	// A reviewer agent that must not stall its turn gets no sleep.
	reviewer := reg.Without("sleep")
	_, canSleep := reviewer.Lookup("sleep")
	fmt.Println(reg.Names(), reviewer.Names(), canSleep)
	fmt.Println(reg.Only("sleep").Names())
	// Output:
	// [sleep echo] [echo] false
	// [sleep]
}

func ExampleSleepTool() {
	sleep := agenttool.SleepTool{}
	res, err := sleep.Execute(context.Background(), json.RawMessage(`{"seconds":0}`))
	fmt.Printf("%+v %v\n", res, err)

	// A bad call is a result the model can read and correct, not a Go error.
	res, err = sleep.Execute(context.Background(), json.RawMessage(`{"seconds":"5"}`))
	fmt.Printf("%v %q %v\n", res.Success, res.Error, err)

	// A pause ends the moment its context does.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = sleep.Execute(ctx, json.RawMessage(`{"seconds":60}`))
	fmt.Println(err)
	// Output:
	// {Success:true Output:Slept for 0 second(s). Error:} <nil>
	// false "\"seconds\" must be an integer from 0 to 86400, got \"5\"" <nil>
	// sleep of 60 second(s) interrupted: context canceled
}

func ExampleFuncTool() {
	upper := &agenttool.FuncTool{
		ToolName:        "upper",
		ToolDescription: "Upper-case the text.",
		Schema:          json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Fn: func(_ context.Context, args json.RawMessage) (agenttool.ToolResult, error) {
			var in struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return agenttool.Failf("arguments must be an object with a string \"text\": %v", err), nil
			}
			return agenttool.OK(strings.ToUpper(in.Text)), nil
		},
		Safe: true,
	}
	res, _ := upper.Execute(context.Background(), json.RawMessage(`{"text":"hi"}`))
	fmt.Println(res.Output, agenttool.IsConcurrencySafe(upper))
	// Output:
	// HI true
}

func ExampleTurn() {
	reg, err := agenttool.NewRegistry(agenttool.DefaultTools()...)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	turn := agenttool.NewTurn(ctx, reg, &agenttool.TurnOptions{
		OnSnapshot: func(s agenttool.Snapshot) {
			// The user presses stop while the long sleep runs.
			if !s.Final && s.Blocks[1].Status == agenttool.StatusRunning {
				cancel()
			}
		},
	})
	defer turn.Close()

	blocks, err := turn.Run([]agenttool.ToolCall{
		{ID: "call_1", Name: "sleep", Args: json.RawMessage(`{"seconds":0}`)},
		{ID: "call_2", Name: "sleep", Args: json.RawMessage(`{"seconds":3600}`)},
		{ID: "call_3", Name: "sleep", Args: json.RawMessage(`{"seconds":1}`)},
	})
	fmt.Println(err)
	for _, b := range blocks {
		fmt.Printf("%s %s %q %q\n", b.Call.ID, b.Status, b.Result.Output, b.Result.Error)
	}
	final := turn.Snapshot()
	fmt.Println("final:", final.Final)
	// Output:
	// agenttool: turn ended: context canceled
	// call_1 succeeded "Slept for 0 second(s)." ""
	// call_2 cancelled "" "cancelled: the turn ended before the call finished (context canceled)"
	// call_3 cancelled "" "cancelled: the turn ended before the call finished (context canceled)"
	// final: true
}
