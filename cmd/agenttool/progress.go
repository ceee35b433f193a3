package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal, where live feedback helps.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress draws live feedback for a running call on a terminal: a bar
// with elapsed and remaining time for sleep, a spinner with elapsed time for
// any other tool. The nil *progress draws nothing.
type progress struct {
	done chan struct{}
	wg   sync.WaitGroup
}

// feedbackTick is how often the bar or spinner redraws.
const feedbackTick = 100 * time.Millisecond

func startProgress(w io.Writer, name string, estimate time.Duration) *progress {
	p := &progress{done: make(chan struct{})}
	seconds := int(estimate / time.Second)
	var bar *progressbar.ProgressBar
	if seconds > 0 {
		bar = progressbar.NewOptions64(int64(seconds),
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("sleep"),
			progressbar.OptionSetWidth(30),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetRenderBlankState(true),
		)
	} else {
		bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(name),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionClearOnFinish(),
		)
	}
	start := time.Now()
	p.wg.Go(func() {
		ticker := time.NewTicker(feedbackTick)
		defer ticker.Stop()
		for {
			select {
			case <-p.done:
				_ = bar.Clear()
				return
			case <-ticker.C:
				elapsed := time.Since(start)
				if seconds > 0 {
					total := time.Duration(seconds) * time.Second
					remaining := max(total-elapsed, 0).Round(time.Second)
					bar.Describe(fmt.Sprintf("sleep %s elapsed, %s left", elapsed.Round(time.Second), remaining))
					_ = bar.Set64(int64(min(elapsed, total) / time.Second))
				} else {
					_ = bar.Add(1)
				}
			}
		}
	})
	return p
}

func (p *progress) stop() {
	if p == nil {
		return
	}
	close(p.done)
	p.wg.Wait()
}
