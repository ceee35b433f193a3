package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/agenttool/agenttool"
)

// isTerminal reports whether w is a terminal, where live feedback helps.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// feedbackTick is how often the feedback redraws.
const feedbackTick = 100 * time.Millisecond

// progress draws live feedback for a running call on a terminal, the same
// way for any tool: the fraction and message the tool reports
// (agenttool.ReportProgress) once it reports; before that, for a tool that
// estimates its duration (agenttool.Estimator), a bar of the elapsed time
// with one elapsed and one remaining time, computed from the same clock
// reading so that they always add up to the estimate; otherwise a spinner
// with the elapsed time. The nil *progress draws nothing.
type progress struct {
	reports chan agenttool.Progress // the latest report not yet drawn
	done    chan struct{}
	wg      sync.WaitGroup
	last    agenttool.Progress // the last report observe saw
}

func startProgress(w io.Writer, name string, estimate time.Duration) *progress {
	p := &progress{reports: make(chan agenttool.Progress, 1), done: make(chan struct{})}
	d := &display{w: w, name: name, estimate: estimate.Round(time.Second), start: time.Now()}
	p.wg.Go(func() {
		ticker := time.NewTicker(feedbackTick)
		defer ticker.Stop()
		for {
			select {
			case <-p.done:
				d.clear()
				return
			case r := <-p.reports:
				d.reported = &r
				d.draw()
			case <-ticker.C:
				d.draw()
			}
		}
	})
	return p
}

// observe takes the call's latest report from a turn's snapshot; a report
// replaces one not yet drawn.
func (p *progress) observe(s agenttool.Snapshot) {
	if len(s.Blocks) == 0 {
		return
	}
	r := s.Blocks[0].Progress
	if r == p.last || r == (agenttool.Progress{}) {
		return
	}
	p.last = r
	for {
		select {
		case p.reports <- r:
			return
		default:
		}
		select {
		case <-p.reports:
		default:
		}
	}
}

func (p *progress) stop() {
	if p == nil {
		return
	}
	close(p.done)
	p.wg.Wait()
}

// display holds the bar being drawn and what it shows.
type display struct {
	w        io.Writer
	name     string
	estimate time.Duration
	start    time.Time
	reported *agenttool.Progress
	bar      *progressbar.ProgressBar
	mode     string // "time", "fraction" or "spinner": what bar draws
}

func (d *display) draw() {
	elapsed := time.Since(d.start)
	switch r := d.reported; {
	case r != nil && r.Total > 0:
		const scale = 1000 // the bar counts thousandths of the total
		d.use("fraction", scale)
		d.bar.Describe(d.label(r.Message))
		_ = d.bar.Set64(int64(min(r.Done/r.Total, 1) * scale))
	case r != nil:
		d.use("spinner", -1)
		d.bar.Describe(d.label(fmt.Sprintf("%s (%s)", r.Message, elapsed.Round(time.Second))))
		_ = d.bar.Add(1)
	case d.estimate > 0:
		d.use("time", int64(d.estimate/time.Second))
		done := min(elapsed, d.estimate).Truncate(time.Second)
		d.bar.Describe(fmt.Sprintf("%s %s elapsed, %s left", d.name, done, d.estimate-done))
		_ = d.bar.Set64(int64(done / time.Second))
	default:
		d.use("spinner", -1)
		d.bar.Describe(fmt.Sprintf("%s %s", d.name, elapsed.Round(time.Second)))
		_ = d.bar.Add(1)
	}
}

func (d *display) label(message string) string {
	if message == "" {
		return d.name
	}
	return d.name + ": " + message
}

// use makes bar draw mode, with max units (-1: a spinner). The bar shows no
// times of its own: the description carries the only ones.
func (d *display) use(mode string, max int64) {
	if d.mode == mode {
		return
	}
	d.clear()
	d.mode = mode
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(d.w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetElapsedTime(false),
	}
	if max < 0 {
		// No spinner goroutine of the bar's own: draw advances it.
		opts = append(opts, progressbar.OptionSpinnerType(14), progressbar.OptionSetSpinnerChangeInterval(0))
	} else {
		opts = append(opts, progressbar.OptionSetRenderBlankState(true))
	}
	d.bar = progressbar.NewOptions64(max, opts...)
}

func (d *display) clear() {
	if d.bar != nil {
		_ = d.bar.Clear()
	}
}
