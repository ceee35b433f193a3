package agenttool_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/agenttool/agenttool"
)

// TestStress runs 10,000 turns with random batches of well- and
// badly-behaved tools (panicking, erroring, ignoring their context) and a
// random cancel point each: a deadline, Close from the observer after a
// random number of snapshots, or a cancel from another goroutine. Every
// turn must end with exactly one final snapshot, last, with no pending or
// running block; goleak (TestMain) then checks that nothing is left running.
func TestStress(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 turns")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	const rounds, perRound = 10, 1000
	for round := range rounds {
		synctest.Test(t, func(t *testing.T) {
			release := make(chan struct{})
			reg := mustRegistry(t, fuzzTools(release)...)
			var wg sync.WaitGroup
			for i := range perRound {
				rng := rand.New(rand.NewPCG(seed, uint64(round*perRound+i)))
				wg.Go(func() { stressTurn(t, reg, rng) })
			}
			wg.Wait()
			close(release)
		})
	}
}

func stressTurn(t *testing.T, reg *agenttool.Registry, rng *rand.Rand) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(4000))*time.Millisecond)
	defer cancel()
	mode := rng.IntN(3)
	closeAfter := 1 + rng.IntN(12)
	var (
		mu    sync.Mutex
		snaps []agenttool.Snapshot
		turn  *agenttool.Turn
	)
	turn = agenttool.NewTurn(ctx, reg, &agenttool.TurnOptions{OnSnapshot: func(s agenttool.Snapshot) {
		mu.Lock()
		snaps = append(snaps, s)
		n := len(snaps)
		mu.Unlock()
		if mode == 1 && n == closeAfter {
			turn.Close()
		}
	}})
	if mode == 2 {
		delay := time.Duration(rng.IntN(3000)) * time.Millisecond
		go func() {
			time.Sleep(delay) // fake time: the bubble's clock
			cancel()
		}()
	}
	names := []string{"sleep", "ok", "okSafe", "panics", "goerr", "unsuccessful", "stubborn", "nope"}
	for b := range 1 + rng.IntN(4) {
		batch := make([]agenttool.ToolCall, 1+rng.IntN(5))
		for i := range batch {
			batch[i] = agenttool.ToolCall{
				ID:   strconv.Itoa(b) + "." + strconv.Itoa(i),
				Name: names[rng.IntN(len(names))],
				Args: json.RawMessage(`{"seconds":` + strconv.Itoa(rng.IntN(3)) + `}`),
			}
		}
		blocks, err := turn.Run(batch)
		if err != nil {
			if !errors.Is(err, agenttool.ErrTurnEnded) {
				t.Errorf("Run: %v", err)
			}
			break
		}
		if len(blocks) != len(batch) {
			t.Errorf("Run returned %d blocks for %d calls", len(blocks), len(batch))
		}
	}
	final := turn.Close()
	<-turn.Done()
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, observedProblems(snaps, final))
}
