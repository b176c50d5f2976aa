package main

import (
	"context"
	"math"
	"time"
)

// resumeWatch bounds how long after a Maestro restart the harness waits for
// each replica's first accepted write, resumePoll how often it scrapes:
// the recorded time is that of the scrape that first saw the write, at most
// resumePoll late, never early.
const (
	resumeWatch = 30 * time.Second
	resumePoll  = 200 * time.Millisecond
	// resumeBump is the share of live clusters given a new generation as
	// Maestro answers again, so that every replica has writes due at once.
	resumeBump = 0.01
)

// watchResume returns, per replica name, the seconds from back to the
// first Maestro write (create, update or delete) the replica's process had
// accepted, -1 when none came within resumeWatch or ctx ended (the
// check.ResumeKey param, judged by check.writesResumed). A replica whose
// process changes while watched (a kill fault) is judged by the new
// process's writes, all of which came after back.
func watchResume(ctx context.Context, rs []*replica, back time.Time) map[string]any {
	type seen struct {
		pid    int
		writes float64
		done   bool
	}
	state := make([]seen, len(rs))
	for i := range state {
		state[i].writes = math.NaN()
	}
	out := map[string]any{}
	for _, r := range rs {
		out[r.name] = -1.0
	}
	t := time.NewTicker(resumePoll)
	defer t.Stop()
	for left := len(rs); left > 0 && time.Since(back) < resumeWatch; {
		for i, r := range rs {
			if state[i].done {
				continue
			}
			pid, writes, ok := r.acceptedWrites()
			if !ok {
				continue
			}
			switch {
			case math.IsNaN(state[i].writes):
				state[i] = seen{pid: pid, writes: writes}
			case pid != state[i].pid:
				state[i] = seen{pid: pid}
				if writes > 0 {
					state[i].done = true
				}
			case writes > state[i].writes:
				state[i].done = true
			}
			if state[i].done {
				out[r.name] = math.Round(time.Since(back).Seconds()*10) / 10
				left--
			}
		}
		select {
		case <-ctx.Done():
			return out
		case <-t.C:
		}
	}
	return out
}

// acceptedWrites scrapes the replica's current process for the Maestro
// writes it had accepted; ok is false when the scrape failed (the process
// is being replaced).
func (r *replica) acceptedWrites() (pid int, writes float64, ok bool) {
	r.mu.Lock()
	ad := r.ad
	r.mu.Unlock()
	if ad == nil {
		return 0, 0, false
	}
	m, err := ad.Metrics()
	if err != nil {
		return 0, 0, false
	}
	return ad.PID(), m.MaestroWritesAccepted(), true
}

