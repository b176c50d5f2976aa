package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

var errInterrupted = errors.New("interrupted")

// demo holds everything the story runs on. Only the story's goroutine
// touches its fields after setUp.
type demo struct {
	o    options
	p    *printer
	id   string
	dir  string
	cfg  demoConfig
	api  *fakeAPI
	kc   *kubernetes.Clientset
	kube *kubeWatcher
	proc *adapterProc
	sent *sentinel

	ns, cm, job watched
	held        bool // the hold finalizer may be on the Job

	// what the story has seen
	last        status
	lastSig     string
	puts        int
	writes      map[string]int
	objs        map[string]obj // by kind
	jobUIDs     []string       // every Job UID seen, oldest first
	pendingSeen bool
	lastGen     int
	timings     []timing
}

type timing struct {
	what string
	took time.Duration
}

// setUp starts the fake API, the watcher and the adapter, and waits until
// the adapter is ready. On error the returned demo (if any) still needs
// tearDown.
func setUp(ctx context.Context, o options, p *printer) (*demo, error) {
	d := &demo{o: o, p: p, id: o.clusterID, writes: map[string]int{}, objs: map[string]obj{}}
	if d.id == "" {
		d.id = "demo-" + randomHex(4)
	}
	d.ns, d.cm, d.job = objectsOf(d.id)
	var err error
	if d.dir, err = os.MkdirTemp("", "bundle-adapter-demo-"); err != nil {
		return nil, err
	}
	if d.api, err = startAPI(d.id, "demo-cluster"); err != nil {
		return d, err
	}
	if d.cfg, err = writeConfigs(o, d.dir, d.api.URL); err != nil {
		return d, err
	}
	if err := stacktest.DropRabbitMQ(o.rabbitURL, demoTopic, d.cfg.queue); err != nil {
		return d, fmt.Errorf("RabbitMQ at %s: %w", redact(o.rabbitURL), err)
	}
	if d.kc, err = newKubeClient(o.kubeconfig); err != nil {
		return d, err
	}
	d.intro()
	d.kube = startKubeWatcher(d.kc, []watched{d.ns, d.cm, d.job}, 250*time.Millisecond)
	start := time.Now()
	if d.proc, err = startAdapter(o, d.cfg); err != nil {
		return d, err
	}
	if err := d.proc.waitReady(ctx, o.readyTime); err != nil {
		return d, err
	}
	d.proc.writesSinceLast()
	d.timings = append(d.timings, timing{"adapter ready (/readyz 200)", time.Since(start)})
	p.at("adapter", "ready in %.1fs (pid %d): subscribed to queue %s, Maestro and the API answer", time.Since(start).Seconds(), d.proc.PID(), d.cfg.queue)
	if d.sent, err = newSentinel(o.rabbitURL, demoTopic, d.api, o.interval); err != nil {
		return d, err
	}
	return d, nil
}

func (d *demo) intro() {
	d.p.plain("bundle-adapter local demo: the onprem example's recreation story on the real stack")
	d.p.plain("  cluster     %s (\"demo-cluster\"), served by a fake HyperFleet API at %s", d.id, d.api.URL)
	d.p.plain("  Maestro     %s (gRPC %s), source %s, consumer %s (a real maestro agent)", d.o.restURL, d.o.grpcAddr, demoSourceID, d.o.consumer)
	d.p.plain("  RabbitMQ    exchange %s, queue %s", demoTopic, d.cfg.queue)
	d.p.plain("  adapter     %s serve, task config %s", d.o.bin, d.cfg.Task)
	d.p.plain("  files       %s (configs, adapter.log)", d.dir)
	d.p.plain("  columns     time since start · where it happened · what happened")
}

// tell runs the three steps of the story.
func (d *demo) tell(ctx context.Context) error {
	for _, step := range []func(context.Context) error{d.create, d.recreate, d.deleteCluster} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	d.summary()
	return nil
}

func (d *demo) create(ctx context.Context) error {
	d.p.header("1. A new cluster %s at generation 1: the adapter creates both bundles, the agent applies them", d.id)
	d.sent.start(ctx)
	start := time.Now()
	err := d.waitFor(ctx, d.o.stepTimeout, "Applied and Available True, with the Namespace, ConfigMap and Job in the API server", func() bool {
		return d.last.cond("Applied") == "True/BundlesApplied" && d.last.cond("Available") == "True/BundlesAvailable" &&
			d.objs["Namespace"].exists && d.objs["ConfigMap"].exists && d.objs["Job"].exists && d.objs["Job"].detail == "GENERATION=1"
	})
	if err != nil {
		return err
	}
	d.timings = append(d.timings, timing{"1. created, applied and available", time.Since(start)})
	return nil
}

func (d *demo) recreate(ctx context.Context) error {
	d.p.header("2. Generation 2: the Job's pod template changes, and a Job's template is immutable: its bundle is recreated")
	oldUID := d.objs["Job"].uid
	if d.o.hold > 0 {
		d.held = true
		if err := setHold(ctx, d.kc, d.job, true); err != nil {
			return fmt.Errorf("put the hold finalizer on Job %s: %w", d.job, err)
		}
		d.p.at("demo", "finalizer %s on Job %s: its deletion will wait %v, as a slow controller would make it", holdFinalizer, d.job, d.o.hold)
	}
	d.api.setGeneration(2)
	d.p.at("api", "cluster %s: generation 1 -> 2", d.id)
	start := time.Now()
	if d.o.hold > 0 {
		err := d.waitFor(ctx, d.o.stepTimeout, "Applied False/RecreationPending", func() bool { return d.pendingSeen })
		if err != nil {
			return err
		}
		release := time.Now().Add(d.o.hold)
		if err := d.waitFor(ctx, 0, "", func() bool { return time.Now().After(release) }); err != nil {
			return err
		}
		if err := setHold(ctx, d.kc, d.job, false); err != nil {
			return fmt.Errorf("remove the hold finalizer from Job %s: %w", d.job, err)
		}
		d.held = false
		d.p.at("demo", "finalizer removed: the agent can finish deleting the old Job; Maestro answers 404 once it has")
	}
	err := d.waitFor(ctx, d.o.stepTimeout, "a new Job (new UID, GENERATION=2), Applied and Available True at generation 2", func() bool {
		j := d.objs["Job"]
		return d.last.ObservedGeneration == 2 && d.last.cond("Applied") == "True/BundlesApplied" &&
			d.last.cond("Available") == "True/BundlesAvailable" &&
			j.exists && !j.deleting && j.uid != oldUID && j.detail == "GENERATION=2"
	})
	if err != nil {
		return err
	}
	what := "2. recreated: new Job uid " + short(d.objs["Job"].uid, 8) + " (was " + short(oldUID, 8) + ")"
	if d.o.hold > 0 {
		what += fmt.Sprintf(", %v of it held", d.o.hold)
	}
	if !d.pendingSeen {
		what += "; RecreationPending was not reported (too short to see without --hold)"
	}
	d.timings = append(d.timings, timing{what, time.Since(start)})
	return nil
}

func (d *demo) deleteCluster(ctx context.Context) error {
	d.p.header("3. The cluster is deleted (deleted_time): the bundles are deleted; Finalized once Maestro answers 404 for both")
	d.api.markDeleted(time.Now())
	d.p.at("api", "cluster %s: deleted_time set", d.id)
	start := time.Now()
	err := d.waitFor(ctx, d.o.stepTimeout, "Finalized True/CleanupConfirmed, with the Namespace, ConfigMap and Job gone", func() bool {
		return d.last.cond("Finalized") == "True/CleanupConfirmed" &&
			!d.objs["Namespace"].exists && !d.objs["ConfigMap"].exists && !d.objs["Job"].exists
	})
	if err != nil {
		return err
	}
	d.timings = append(d.timings, timing{"3. deleted and finalized", time.Since(start)})
	return nil
}

// idle keeps the adapter and the Sentinel running until SIGINT.
func (d *demo) idle(ctx context.Context) error {
	d.p.header("The story is complete. The adapter keeps consuming and the Sentinel keeps publishing; Ctrl-C stops the adapter")
	d.p.plain("  metrics     curl -s http://%s/metrics | grep ^bundle_adapter_", d.proc.Listen())
	d.p.plain("  adapter log %s", d.proc.LogPath())
	return d.waitFor(ctx, 0, "", func() bool { return false })
}

func (d *demo) summary() {
	d.p.header("The story took")
	for _, t := range d.timings {
		d.p.plain("  %6.1fs  %s", t.took.Seconds(), t.what)
	}
	d.p.plain("  %d status PUTs; Maestro writes: %s", d.puts, writeSummary(d.writes))
}

// waitFor shows what happens until done returns true. It fails after
// timeout (0: never), when the adapter exits, or with errInterrupted.
func (d *demo) waitFor(ctx context.Context, timeout time.Duration, what string, done func() bool) error {
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var sentC <-chan published
	if d.sent != nil {
		sentC = d.sent.published
	}
	for !done() {
		select {
		case <-ctx.Done():
			return errInterrupted
		case <-expired:
			return fmt.Errorf("%s did not happen within %v (last status: %s)%s", what, timeout, d.lastSig, d.hint())
		case <-d.proc.Done():
			return fmt.Errorf("the adapter exited: %v", d.proc.Err())
		case put := <-d.api.puts:
			d.onPUT(put)
		case c := <-d.kube.changes:
			d.onChange(c)
		case e := <-sentC:
			d.onPublished(e)
		case <-tick.C:
		}
	}
	return nil
}

// hint explains the likeliest cause of a step that timed out.
func (d *demo) hint() string {
	switch {
	case d.puts == 0:
		return "; no status PUT at all: see the adapter log"
	case d.last.cond("Applied") == "True/BundlesApplied" && d.last.cond("Available") != "True/BundlesAvailable":
		return "; Maestro accepted the bundles but the agent reported nothing back: is Maestro dispatching to the agent? " +
			"(hack/stack.sh status; the agent log; restarting Maestro helps: hack/maestro.sh stop && hack/maestro.sh start)"
	}
	return ""
}

func (d *demo) onPUT(put statusPUT) {
	d.puts++
	if put.err != nil {
		d.p.at("status", "PUT #%d: undecodable body: %v", d.puts, put.err)
		return
	}
	writes := d.proc.writesSinceLast()
	for verb, n := range writes {
		d.writes[verb] += n
	}
	sig := putSignature(put.status)
	d.p.printPUT(d.puts, put.status, writes, sig != d.lastSig)
	d.last, d.lastSig = put.status, sig
	if put.status.cond("Applied") == "False/RecreationPending" {
		d.pendingSeen = true
	}
}

func (d *demo) onChange(c objChange) {
	previous := ""
	if c.kind == "Job" && len(d.jobUIDs) > 0 {
		previous = d.jobUIDs[len(d.jobUIDs)-1]
	}
	d.p.printChange(c, previous)
	d.objs[c.kind] = c.after
	if c.kind == "Job" && c.after.exists && c.after.uid != previous {
		d.jobUIDs = append(d.jobUIDs, c.after.uid)
	}
}

func (d *demo) onPublished(e published) {
	if e.err != nil {
		d.p.at("sentinel", "publish failed: %v", e.err)
		return
	}
	if e.generation != d.lastGen {
		d.p.at("sentinel", "reconcile event %s, generation %d (one every %v from now on)", e.id, e.generation, d.o.interval)
		d.lastGen = e.generation
	}
}

func (d *demo) showAdapterLog(n int) {
	if d.proc == nil {
		return
	}
	if t := d.proc.Tail(n); t != "" {
		d.p.plain("\nlast lines of the adapter log (%s):\n%s", d.proc.LogPath(), t)
	}
}

// tearDown stops the Sentinel and the adapter (SIGTERM), releases the hold
// finalizer, drops the demo's queues, and removes the temporary folder when
// ok. The stack stays up.
func (d *demo) tearDown(ok bool) {
	if d.sent != nil {
		d.sent.close()
	}
	if d.held {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := setHold(ctx, d.kc, d.job, false); err != nil {
			d.p.at("demo", "could not remove finalizer %s from Job %s: %v", holdFinalizer, d.job, err)
		}
		cancel()
	}
	if d.proc != nil {
		took, err := d.proc.Stop(20 * time.Second)
		if err != nil {
			d.p.at("adapter", "stopped (SIGTERM) after %.1fs: %v", took.Seconds(), err)
		} else {
			d.p.at("adapter", "stopped (SIGTERM) in %.1fs, exit status 0", took.Seconds())
		}
	}
	if d.cfg.queue != "" {
		_ = stacktest.DropRabbitMQ(d.o.rabbitURL, demoTopic, d.cfg.queue)
	}
	if d.kube != nil {
		d.kube.close()
	}
	if d.api != nil {
		d.api.close()
	}
	if !ok && d.kc != nil && (d.objs["Namespace"].exists || d.objs["Job"].exists) {
		d.p.plain("left behind: bundles %s-setup and %s-validation in Maestro (source %s) and their objects in the API server",
			d.id, d.id, demoSourceID)
	}
	if d.dir != "" {
		if ok && !d.o.keepDir {
			os.RemoveAll(d.dir)
		} else {
			d.p.plain("kept %s (configs, adapter.log)", d.dir)
		}
	}
	d.p.plain("the stack stays up; hack/stack.sh down stops it")
}

// redact hides the password of a URL for messages.
func redact(u string) string {
	if at := strings.LastIndex(u, "@"); at > 0 {
		if scheme := strings.Index(u, "://"); scheme > 0 && scheme < at {
			return u[:scheme+3] + "***" + u[at:]
		}
	}
	return u
}
