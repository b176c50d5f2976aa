package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bundle-adapter/bundle-adapter/bench/soak/check"
)

// allFaults are the faults of the schedule, in their default order before
// the seed shuffles them. The final drain's faults (a generation bump and
// an API outage overlapping the publisher's last round) come on top.
var allFaults = []string{"maestro-restart", "rabbitmq-close", "postgres-restart", "api-503",
	"adapter-kill", "agent-restart", "recreation-wave", "deletion-wave"}

// planned is one fault at its offset from the start of the run.
type planned struct {
	name string
	at   time.Duration
}

// schedule spreads faults over [from, to) in an order and with jitter drawn
// from seed: the same seed, faults and span give the same schedule.
func schedule(seed int64, faults []string, from, to time.Duration) []planned {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x50a4))
	order := slices.Clone(faults)
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	slot := (to - from) / time.Duration(max(len(order), 1))
	out := make([]planned, len(order))
	for i, f := range order {
		jitter := time.Duration(rng.Int64N(int64(slot/2) + 1))
		out[i] = planned{name: f, at: from + time.Duration(i)*slot + jitter}
	}
	return out
}

// faulter makes the faults and records each (faults.jsonl), printing it as
// it happens.
type faulter struct {
	h   *harness
	rec *recorder
	rng *rand.Rand
}

// do makes one fault now and records it with its params and end.
func (f *faulter) do(ctx context.Context, name string) {
	at := time.Now()
	params, err := f.make(ctx, name)
	f.record(name, at, params, err)
}

// record records a fault made at at, ending now (or after its outage).
func (f *faulter) record(name string, at time.Time, params map[string]any, err error) {
	ev := check.Fault{Name: name, Params: params, At: at, End: time.Now()}
	if d, ok := params["outage_s"].(float64); ok {
		ev.End = at.Add(time.Duration(d * float64(time.Second)))
	}
	if err != nil {
		ev.Error = err.Error()
	}
	f.rec.add(ev)
	fmt.Printf("%s fault %-17s +%-6s %v%s\n", at.UTC().Format("15:04:05"), name,
		at.Sub(f.h.start).Round(time.Second), params, errSuffix(err))
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return " ERROR: " + err.Error()
}

func (f *faulter) make(ctx context.Context, name string) (map[string]any, error) {
	h := f.h
	switch name {
	case "maestro-restart":
		if err := f.script("stop"); err != nil {
			return nil, err
		}
		if err := f.script("start"); err != nil {
			return map[string]any{"script": "hack/maestro.sh stop; start"}, err
		}
		// Maestro answers again (start waits for its health check): give
		// some clusters a new generation, so that writes are due on every
		// replica, and watch each replica's source clients reconnect.
		back := time.Now()
		bumped := f.bump(resumeBump)
		params := watchResume(ctx, h.replicas, back)
		params["script"], params["back_at"], params["bumped"] = "hack/maestro.sh stop; start", back.UTC().Format(time.RFC3339Nano), bumped
		return params, nil
	case "rabbitmq-close":
		n, err := closeConnections(h.sourceID)
		return map[string]any{"connections": n}, err
	case "postgres-restart":
		vers, _ := filepath.Glob("/etc/postgresql/*")
		if len(vers) == 0 {
			return nil, fmt.Errorf("no /etc/postgresql/<version>")
		}
		v := filepath.Base(vers[0])
		out, err := exec.CommandContext(ctx, "pg_ctlcluster", "--skip-systemctl-redirect", v, "main", "restart").CombinedOutput()
		if err != nil {
			err = fmt.Errorf("pg_ctlcluster: %v: %s", err, out)
		}
		return map[string]any{"version": v}, err
	case "api-503":
		h.api.outage(h.o.outage)
		return map[string]any{"outage_s": h.o.outage.Seconds()}, nil
	case "adapter-kill":
		r := h.replicas[f.rng.IntN(len(h.replicas))]
		pid := r.kill()
		time.Sleep(2 * time.Second)
		err := r.start(ctx)
		return map[string]any{"replica": r.name, "pid": pid}, err
	case "agent-restart":
		// A simulated agent, and the first real agent when there is one.
		sim := h.simulated()
		c := sim[f.rng.IntN(len(sim))]
		params := map[string]any{"consumer": c}
		if err := h.agents.restart(c); err != nil || len(h.real) == 0 {
			return params, err
		}
		params["real"] = h.real[0]
		return params, realAgents{h.o.hackDir}.restart(h.real[0])
	case "recreation-wave":
		return map[string]any{"clusters": f.bump(0.10)}, nil
	case "deletion-wave":
		return f.deletionWave(0.05), nil
	}
	return nil, fmt.Errorf("unknown fault %q", name)
}

// live are the clusters not being deleted, in publishing order.
func (f *faulter) live() []cluster {
	return slices.DeleteFunc(f.h.api.snapshot(), func(c cluster) bool { return c.deleted })
}

// bump raises the generation of a fraction of the live clusters (the
// example's recreate rule is true for a new generation).
func (f *faulter) bump(frac float64) int {
	live := f.live()
	n := max(1, int(frac*float64(len(live))))
	for _, i := range f.rng.Perm(len(live))[:n] {
		f.h.api.change(live[i].id, func(c *cluster) { c.generation++ })
	}
	return n
}

// deletionWave marks a fraction of the live clusters deleted (deleted_time,
// a new generation) and adds as many new clusters under new ids.
func (f *faulter) deletionWave(frac float64) map[string]any {
	live := f.live()
	n := max(1, int(frac*float64(len(live))))
	for _, i := range f.rng.Perm(len(live))[:n] {
		old := live[i]
		f.h.api.change(old.id, func(c *cluster) { c.deleted = true; c.generation++ })
		f.h.api.add(&cluster{id: old.id + "-r", consumer: old.consumer, generation: 1})
	}
	return map[string]any{"deleted": n, "created": n}
}

func (f *faulter) script(verb string) error {
	cmd := exec.Command(filepath.Join(f.h.o.hackDir, "maestro.sh"), verb)
	cmd.Env = append(os.Environ(), "MAESTRO_FRESH=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("maestro.sh %s: %v: %s", verb, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// closeConnections force-closes, with rabbitmqctl, every connection whose
// client properties name (connection_name, the adapter's name, unique to
// the run) is name: the adapters' own, not other users' of the machine's
// RabbitMQ.
func closeConnections(name string) (int, error) {
	out, err := exec.Command("rabbitmqctl", "-q", "list_connections", "pid", "client_properties").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("rabbitmqctl list_connections: %v: %s", err, out)
	}
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.Contains(line, `"`+name+`"`) {
			continue
		}
		pid := strings.Fields(line)[0]
		if out, err := exec.Command("rabbitmqctl", "close_connection", pid, "soak: connections closed").CombinedOutput(); err != nil {
			return n, fmt.Errorf("rabbitmqctl close_connection: %v: %s", err, out)
		}
		n++
	}
	return n, nil
}
