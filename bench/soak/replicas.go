package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// replica is one adapter replica: its current process, and the Maestro
// request counters of the processes it ran before (a killed process's last
// scrape).
type replica struct {
	name  string
	bin   string
	files stacktest.Files
	dir   string

	mu       sync.Mutex
	ad       *stacktest.Adapter
	starts   int
	last     stacktest.Metrics // the current process's last scrape
	requests float64           // Maestro requests of earlier processes
	refused  float64           // their creates refused as already existing
	creates  float64           // their creates accepted
}

func (r *replica) start(ctx context.Context) error {
	r.mu.Lock()
	r.starts++
	logPath := filepath.Join(r.dir, fmt.Sprintf("adapter-%s-%d.log", r.name, r.starts))
	r.mu.Unlock()
	ad, err := stacktest.StartAdapter(stacktest.AdapterOptions{Bin: r.bin, Files: r.files, LogPath: logPath})
	if err != nil {
		return err
	}
	if err := ad.WaitReady(ctx, 90*time.Second); err != nil {
		ad.Kill()
		return fmt.Errorf("replica %s not ready (log %s): %w", r.name, logPath, err)
	}
	r.mu.Lock()
	r.ad, r.last = ad, nil
	r.mu.Unlock()
	return nil
}

// kill SIGKILLs the current process, keeping its last counters.
func (r *replica) kill() int {
	r.mu.Lock()
	ad := r.ad
	r.requests += r.last.Sum(stacktest.MaestroRequests)
	r.refused += r.last.MaestroCreatesRefused()
	r.creates += r.last.MaestroCreates()
	r.last = nil
	r.mu.Unlock()
	pid := ad.PID()
	ad.Kill()
	return pid
}

func (r *replica) stop() {
	r.mu.Lock()
	ad := r.ad
	r.mu.Unlock()
	if ad != nil {
		_, _ = ad.Stop(30 * time.Second)
	}
}

// totals are the replica's Maestro requests, refused and accepted creates
// over every process it ran, as last scraped.
func (r *replica) totals() (requests, refused, creates float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests + r.last.Sum(stacktest.MaestroRequests), r.refused + r.last.MaestroCreatesRefused(), r.creates + r.last.MaestroCreates()
}

// sample reads the current process's RSS and open fds from /proc and its
// goroutines from /metrics, and keeps the scrape.
func (r *replica) sample() (check.Sample, error) {
	r.mu.Lock()
	ad := r.ad
	r.mu.Unlock()
	s := check.Sample{Replica: r.name, PID: ad.PID(), At: time.Now()}
	m, err := ad.Metrics()
	if err != nil {
		return s, err
	}
	s.Goroutines = m.Sum("go_goroutines")
	s.RSSBytes, err = rss(s.PID)
	if err != nil {
		return s, err
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.PID))
	if err != nil {
		return s, err
	}
	s.FDs = float64(len(fds))
	r.mu.Lock()
	if r.ad == ad {
		r.last = m
	}
	r.mu.Unlock()
	return s, nil
}

// rss is VmRSS of pid in bytes.
func rss(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			kb, err := strconv.ParseFloat(f[0], 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

// sampleEvery samples every replica each period until ctx ends.
func sampleEvery(ctx context.Context, period time.Duration, rs []*replica, rec *recorder) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		for _, r := range rs {
			if s, err := r.sample(); err == nil {
				rec.add(s)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
