package main

import (
	"context"
	"math"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
)

// resumeWatch is how long after a Maestro restart the harness watches each
// replica, resumePoll how often it scrapes: a recorded time is that of the
// scrape that first saw the state, at most resumePoll late, never early.
const (
	resumeWatch = 30 * time.Second
	resumePoll  = 200 * time.Millisecond
	// resumeBump is the share of live clusters given a new generation as
	// Maestro answers again, so that writes are due on every replica (they
	// reach it after whatever the queue holds).
	resumeBump = 0.01
)

// resumeState is one replica's watch.
type resumeState struct {
	pid      int
	resumed  float64 // seconds from back to every source client connected, -1 not yet
	baseline float64 // writes refused as of the first scrape after back+ResumeLimit, NaN before
	refused  float64 // writes refused as of the last scrape
	changed  bool    // the process changed after the baseline: what it refused is not known
}

// observe scrapes r once; a failed scrape changes nothing (the counters
// are cumulative, the next one catches up).
func (s *resumeState) observe(r *replica, back, limit time.Time) {
	pid, connected, total, refused, ok := r.sourceClients()
	if !ok {
		return
	}
	if s.pid != -1 && pid != s.pid && !math.IsNaN(s.baseline) {
		s.changed = true
	}
	s.pid, s.refused = pid, refused
	if s.resumed < 0 && total > 0 && connected == total {
		s.resumed = math.Round(time.Since(back).Seconds()*10) / 10
	}
	if math.IsNaN(s.baseline) && !time.Now().Before(limit) {
		s.baseline = refused
	}
}

// late is the writes refused after back+ResumeLimit, -1 when not known.
func (s *resumeState) late() float64 {
	if s.changed || math.IsNaN(s.baseline) {
		return -1
	}
	return s.refused - s.baseline
}

// watchResume watches every replica for resumeWatch from back, the moment
// Maestro answered its health check again, and returns the maestro-restart
// fault's params judged by check.writesResumed:
//   - check.ResumeKey: per replica, seconds from back until all its Maestro
//     source clients held their connection again (sdk-go accepts writes
//     only then), -1 when not within the watch;
//   - check.RefusedKey: per replica, the Maestro writes it refused as
//     unavailable from back+check.ResumeLimit to the watch's end (-1: not
//     known, its process changed meanwhile or was never scraped).
//
// It reads the replicas' gauges rather than waiting for their writes:
// writes come when events reach a replica, after whatever the queue
// holds, so a replica's first write times the queue, not the client.
func watchResume(ctx context.Context, rs []*replica, back time.Time) map[string]any {
	st := make([]resumeState, len(rs))
	for i := range st {
		st[i] = resumeState{pid: -1, resumed: -1, baseline: math.NaN()}
	}
	limit := back.Add(time.Duration(check.ResumeLimit * float64(time.Second)))
	t := time.NewTicker(resumePoll)
	defer t.Stop()
	for time.Since(back) < resumeWatch {
		for i, r := range rs {
			st[i].observe(r, back, limit)
		}
		select {
		case <-ctx.Done():
			return resumeParams(rs, st)
		case <-t.C:
		}
	}
	return resumeParams(rs, st)
}

func resumeParams(rs []*replica, st []resumeState) map[string]any {
	resumed, refused := map[string]any{}, map[string]any{}
	for i, r := range rs {
		resumed[r.name] = st[i].resumed
		refused[r.name] = st[i].late()
	}
	return map[string]any{check.ResumeKey: resumed, check.RefusedKey: refused}
}

// sourceClients scrapes the replica's current process for its Maestro
// source clients (connected of total) and the writes it had refused as
// unavailable; ok is false when the scrape failed (the process is being
// replaced).
func (r *replica) sourceClients() (pid int, connected, total, refused float64, ok bool) {
	r.mu.Lock()
	ad := r.ad
	r.mu.Unlock()
	if ad == nil {
		return 0, 0, 0, 0, false
	}
	m, err := ad.Metrics()
	if err != nil {
		return 0, 0, 0, 0, false
	}
	connected, total = m.SourceClients()
	return ad.PID(), connected, total, m.MaestroWritesRefused(), true
}
