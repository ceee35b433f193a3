package agenttool_test

import (
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/agenttool/agenttool"
)

func itoa(n int) string { return strconv.Itoa(n) }

func utf8Valid(s string) bool { return utf8.ValidString(s) }

// observedProblems checks what an observer saw of a turn against its
// invariants: Seq strictly increasing, exactly one final snapshot, which is
// the last and equals final, and no pending or running block in it.
func observedProblems(snaps []agenttool.Snapshot, final agenttool.Snapshot) []string {
	var problems []string
	finals := 0
	for i, s := range snaps {
		if s.Final {
			finals++
		}
		if i > 0 && s.Seq <= snaps[i-1].Seq {
			problems = append(problems, fmt.Sprintf("Seq %d after %d", s.Seq, snaps[i-1].Seq))
		}
	}
	if finals != 1 {
		problems = append(problems, fmt.Sprintf("%d final snapshots, want 1", finals))
	}
	if len(snaps) == 0 || !reflect.DeepEqual(snaps[len(snaps)-1], final) {
		problems = append(problems, "the final snapshot is not the last one delivered")
	}
	for i, b := range final.Blocks {
		if !b.Status.Finished() {
			problems = append(problems, fmt.Sprintf("block %d is %v in the final snapshot", i, b.Status))
		}
	}
	return problems
}

// received returns what ch holds, failing the test if it holds nothing: in
// a synctest bubble, after synctest.Wait, an empty channel means the sender
// is still blocked.
func received[T any](t *testing.T, ch <-chan T, failure string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	default:
		t.Fatal(failure)
		panic("unreachable")
	}
}
