package maestroclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

// TestSpecsLostWhileMaestroListenerAway is issues 41 and 48's soak finding
// on the real server, without restarting the machine's PostgreSQL: Maestro
// hands a spec change to the agent only when PostgreSQL notifies its LISTEN
// connection on the channel "events" (pkg/dao/event.go: pg_notify('events',
// id) as the event is stored; cmd/maestro/server/controllers.go listens
// through pkg/db/db_session/default.go, lib/pq, reconnecting 10 s to 1 min
// apart); a notification sent while that connection is away is lost, and
// Maestro reads its unreconciled events again only every 10 hours
// (pkg/controllers/framework.go defaultEventsSyncPeriod). The test cuts
// that one connection (the database refuses new connections, then the
// listener's backend is terminated: Maestro's pooled connections stay, so
// it still accepts writes), writes through the source client while the
// listener is away (creates, an update, a delete of an applied bundle; each
// checked in Maestro's REST API), lets connections in again, creates a
// probe bundle every 2 s until one reaches the agent (the listener is back)
// and records what the agent received by 30 s after connections were
// allowed: nothing of what was written before (the documented loss; a
// delivery means Maestro now re-reads events, see the failure message).
// Then it applies the operator's remedy, restarting the agent, whose resync
// must deliver every held spec. Disruptive (the shared server's deliveries
// stop meanwhile): set MAESTRO_TEST_RESTART=1. It needs psql and
// PostgreSQL's superuser (MAESTRO_DB_HOST, _PORT, _USER, _PASSWORD, _NAME
// as hack/maestro.sh reads them).
func TestSpecsLostWhileMaestroListenerAway(t *testing.T) {
	s := requireServer(t)
	if os.Getenv(envRestart) != "1" {
		t.Skipf("disruptive: set %s=1 to cut Maestro's LISTEN connection for its spec events", envRestart)
	}
	pg := maestroDB(t)
	pg.postmaster = pg.postmasterStart(t)
	ctx := t.Context()
	// One try per call: a write Maestro cannot take while the listener is
	// away must show, not be retried past the outage.
	c := newClient(t, s, func(o *maestroclient.Options) { o.Retry.Attempts = 1 })
	consumer := register(t, s, "listener")
	pg.requireConsumer(t, consumer)
	rec := &receipts{got: map[string][]receipt{}}
	agent := startAgent(t, s, consumer, func(o *agentsim.Options) { o.OnReceive = rec.hook("first agent") })

	// 1. Control: delivered while the listener is there.
	names := map[string]string{}
	for _, role := range []string{"control", "update", "delete"} {
		names[role] = role + "-" + unique("b")
		start := time.Now()
		if _, err := c.Create(ctx, consumer, bundle(names[role], "v1"), adapter.Unread); err != nil {
			t.Fatalf("create %s: %v", names[role], err)
		}
		waitApplied(t, c, consumer, names[role], 1)
		ch := &change{what: "create " + names[role], name: names[role], generation: 1}
		checkHeld(t, c, consumer, ch, false)
		r, ok := rec.first(ch, "first agent")
		if !ok {
			t.Fatalf("control: %s applied but not received by the agent: the test's recorder is broken", ch.what)
		}
		t.Logf("control: %s delivered in %s, applied in %s", ch.what, r.at.Sub(start).Round(time.Millisecond),
			time.Since(start).Round(time.Millisecond))
	}
	observed, err := c.Get(ctx, consumer, names["update"])
	if err != nil {
		t.Fatalf("get %s: %v", names["update"], err)
	}

	// 2. The listener away: no new connection to Maestro's database, the
	// listener's backend terminated.
	listener, others := pg.eventsListener(t)
	t.Logf("Maestro's LISTEN \"events\" connection: backend %d; its other listeners: %v", listener, others)
	t.Cleanup(func() { pg.restoreConnections(t) }) // whatever happens below
	pg.allowConnections(t, false)
	cut := time.Now()
	at := func(when time.Time) string { return fmt.Sprintf("t%+.1fs", when.Sub(cut).Seconds()) }
	pg.terminate(t, listener)
	t.Logf("t+0.0s: connections to %s refused, backend %d terminated", pg.name, listener)
	pg.requireListenerAway(t, listener)
	if after, _ := pg.pqBackends(t); !subset(others, after) {
		t.Fatalf("Maestro's other listeners changed with the events listener: before %v, after %v", others, after)
	}
	restOK(t, s, pg)

	// 3. Writes while the listener is away, each held by Maestro.
	var changes []*change
	// unanswered: the agent cannot have answered it yet (written while the
	// listener is surely away).
	write := func(what, name string, gen int64, deleting, unanswered bool, call func() error) *change {
		t.Helper()
		start := time.Now()
		if err := call(); err != nil {
			t.Fatalf("%s at %s (after %s): Maestro refused a write while its listener was away: %v "+
				"(its pooled connections did not suffice: the fault is not the soak's)%s",
				what, at(start), time.Since(start).Round(time.Millisecond), err, pg.disturbed(t))
		}
		ch := &change{what: what, name: name, generation: gen, deleting: deleting, written: time.Now()}
		checkHeld(t, c, consumer, ch, unanswered)
		changes = append(changes, ch)
		t.Logf("%s: %s written in %s, held by Maestro (REST: %s)", at(ch.written), what,
			ch.written.Sub(start).Round(time.Millisecond), ch.rest)
		return ch
	}
	create := func(role string, unanswered bool) *change {
		names[role] = role + "-" + unique("b")
		return write("create "+names[role], names[role], 1, false, unanswered, func() error {
			_, err := c.Create(ctx, consumer, bundle(names[role], "v1"), adapter.Unread)
			return err
		})
	}
	pause := func() { time.Sleep(1500 * time.Millisecond) }
	pause()
	create("away1", true)
	pause()
	desired := bundle(names["update"], "v2")
	write("update "+names["update"]+" to v2", names["update"], 2, false, true, func() error {
		_, err := c.Update(ctx, consumer, observed, desired)
		return err
	})
	pause()
	write("delete "+names["delete"], names["delete"], 0, true, true, func() error {
		return c.Delete(ctx, consumer, names["delete"])
	})
	pause()
	create("away2", true)
	if time.Since(cut) < 10*time.Second {
		time.Sleep(10*time.Second - time.Since(cut))
	}
	pg.requireListenerAway(t, listener)
	if d := pg.disturbed(t); d != "" {
		t.Fatalf("the listener's outage was not the test's alone%s", d)
	}

	// Connections allowed again; the listener comes back when its next
	// reconnect attempt falls due, which pg_stat_activity does not tell: a
	// lib/pq listener Maestro closed while it waited to reconnect connects
	// all the same, listening on "events" for no one. A probe bundle every
	// 2 s until one reaches the agent: the first delivered says the
	// listener is back; those before it are lost too.
	pg.allowConnections(t, true)
	allowed := time.Now()
	t.Logf("%s: connections to %s allowed again", at(allowed), pg.name)
	var back time.Time // when the first delivered probe was written
	for i := 1; back.IsZero(); i++ {
		if time.Since(allowed) > 2*time.Minute {
			t.Fatalf("Maestro's events listener not back 2 minutes after connections were allowed%s", pg.disturbed(t))
		}
		probe := create(fmt.Sprintf("probe%d", i), false)
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if r, ok := rec.first(probe, "first agent"); ok {
				back = probe.written
				t.Logf("%s: %s delivered: the listener delivers again", at(r.at), probe.what)
				break
			}
		}
	}
	var lost []*change
	for _, ch := range changes {
		if ch.written.Before(back) {
			lost = append(lost, ch)
		}
	}
	t.Logf("lib/pq connections started since the cut (Maestro's new listener; and a closed one that reconnected?): %s",
		pg.startedSince(t, cut, at))

	wait := 30*time.Second - time.Since(allowed)
	if wait < 15*time.Second-time.Since(back) {
		wait = 15*time.Second - time.Since(back)
	}
	time.Sleep(wait)
	t.Logf("%s: what the first agent received of each write (connections allowed at %s, listener back by %s):",
		at(time.Now()), at(allowed), at(back))
	for _, ch := range changes {
		if r, ok := rec.first(ch, "first agent"); ok {
			ch.delivered = r.at
			t.Logf("  %s written %s: delivered at %s", ch.what, at(ch.written), at(r.at))
		} else {
			t.Logf("  %s written %s: NOT delivered (what it received of that bundle: %s)", ch.what, at(ch.written),
				rec.all(ch.uid, at))
		}
	}
	for _, ch := range lost {
		if ch.delivered.IsZero() {
			checkHeld(t, c, consumer, ch, true) // still held, still not applied
			continue
		}
		t.Errorf("%s, written %s while Maestro's events listener was away (back by %s), reached the agent at %s: "+
			"Maestro now delivers spec events notified while its listener reconnects (it re-reads its "+
			"events on reconnect, or sooner than every 10 hours): the loss docs/reliability.md describes "+
			"(\"A PostgreSQL restart: spec changes Maestro never delivers\", issues 41 and 48) and the soak's "+
			"delivery remedy (bench/soak/delivery.go) may no longer be needed: update them and this test",
			ch.what, at(ch.written), at(back), at(ch.delivered))
	}

	// 4. The operator's remedy: restart the agent; its resync delivers
	// every held spec.
	agent.Stop()
	restart := time.Now()
	startAgent(t, s, consumer, func(o *agentsim.Options) { o.OnReceive = rec.hook("restarted agent") })
	t.Logf("%s: agent restarted (connected in %s)", at(time.Now()), time.Since(restart).Round(time.Millisecond))
	for _, ch := range lost {
		eventually(t, 30*time.Second, ch.what+" done after the agent's restart (its resync, the operator's remedy: "+
			"docs/reliability.md)", func() error { return answered(t, c, consumer, ch) })
		r, ok := rec.first(ch, "restarted agent")
		if !ok {
			t.Errorf("%s: done in Maestro but not received by the restarted agent", ch.what)
			continue
		}
		t.Logf("  %s: delivered by the restarted agent's resync %s after the restart, done in Maestro by %s",
			ch.what, r.at.Sub(restart).Round(time.Millisecond), time.Since(restart).Round(time.Millisecond))
	}
	waitAppliedWithin(t, c, consumer, names["control"], 10*time.Second)
}

// change is one write of the test and what became of it.
type change struct {
	what       string
	name       string
	uid        string
	generation int64 // the generation written; 0 for a delete
	deleting   bool
	written    time.Time // when the write returned
	rest       string    // what Maestro's REST API showed of it
	delivered  time.Time // when the first agent received it; zero: never
}

// matches says whether w is this change as the agent receives it.
func (ch *change) matches(w *workv1.ManifestWork) bool {
	if ch.deleting {
		return w.DeletionTimestamp != nil
	}
	return w.DeletionTimestamp == nil && w.Generation == ch.generation
}

// checkHeld requires Maestro's REST API to show the change and, when
// unanswered, no agent's answer to it (not applied at its generation; a
// delete is still deleting either way: Get would answer 404).
func checkHeld(t *testing.T, c adapter.Maestro, consumer string, ch *change, unanswered bool) {
	t.Helper()
	w, err := c.Get(t.Context(), consumer, ch.name)
	if err != nil {
		t.Fatalf("%s: not in Maestro's REST API: %v", ch.what, err)
	}
	applied := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
	appliedAt := int64(0)
	if applied != nil {
		appliedAt = applied.ObservedGeneration
	}
	switch {
	case ch.deleting && w.DeletionTimestamp == nil:
		t.Fatalf("%s: Maestro shows no deletionTimestamp", ch.what)
	case !ch.deleting && (w.Generation != ch.generation || w.DeletionTimestamp != nil):
		t.Fatalf("%s: Maestro shows generation %d, deletionTimestamp %v", ch.what, w.Generation, w.DeletionTimestamp)
	case unanswered && !ch.deleting && appliedAt == ch.generation:
		t.Fatalf("%s: already applied at generation %d: delivered", ch.what, appliedAt)
	}
	ch.uid = string(w.UID)
	ch.rest = fmt.Sprintf("generation %d, applied at %d", w.Generation, appliedAt)
	if ch.deleting {
		ch.rest += ", deleting since " + w.DeletionTimestamp.UTC().Format(time.TimeOnly)
	}
}

// answered says whether the agent answered the change: a delete confirmed
// (404), a spec applied at its generation.
func answered(t *testing.T, c adapter.Maestro, consumer string, ch *change) error {
	w, err := c.Get(t.Context(), consumer, ch.name)
	switch {
	case ch.deleting && errors.Is(err, adapter.ErrNotFound):
		return nil
	case err != nil:
		return err
	case ch.deleting:
		return fmt.Errorf("still deleting since %s", w.DeletionTimestamp)
	}
	cond := meta.FindStatusCondition(w.Status.Conditions, workv1.WorkApplied)
	if w.Generation != ch.generation || cond == nil || cond.ObservedGeneration != ch.generation {
		return fmt.Errorf("generation %d, Applied %+v", w.Generation, cond)
	}
	return nil
}

// restOK requires Maestro's REST API to answer a read of its database.
func restOK(t *testing.T, s server, pg pgAdmin) {
	t.Helper()
	resp, err := http.Get(s.rest + "/api/maestro/v1/consumers")
	if err != nil {
		t.Fatalf("REST while connections are refused: %v%s", err, pg.disturbed(t))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("REST while connections are refused: HTTP %d%s", resp.StatusCode, pg.disturbed(t))
	}
}

// receipts records, by uid, every spec event each agent received.
type receipts struct {
	mu  sync.Mutex
	got map[string][]receipt
}

type receipt struct {
	agent string
	work  *workv1.ManifestWork
	at    time.Time
}

func (r *receipts) hook(agent string) func(*workv1.ManifestWork) {
	return func(w *workv1.ManifestWork) {
		r.mu.Lock()
		defer r.mu.Unlock()
		uid := string(w.UID) // the agent's work is named by Maestro's resource id, its uid
		r.got[uid] = append(r.got[uid], receipt{agent: agent, work: w.DeepCopy(), at: time.Now()})
	}
}

// all describes every receipt of the bundle of uid.
func (r *receipts) all(uid string, at func(time.Time) string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.got[uid] {
		out = append(out, fmt.Sprintf("%s: generation %d deleting %t at %s", e.agent, e.work.Generation,
			e.work.DeletionTimestamp != nil, at(e.at)))
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, "; ")
}

// first is the first receipt of ch by agent.
func (r *receipts) first(ch *change, agent string) (receipt, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.got[ch.uid] {
		if e.agent == agent && ch.matches(e.work) {
			return e, true
		}
	}
	return receipt{}, false
}

// pgAdmin reaches Maestro's PostgreSQL as hack/maestro.sh does, through psql.
type pgAdmin struct {
	host, port, user, password, name string
	postmaster                       string // when PostgreSQL started, as the test began
}

func maestroDB(t *testing.T) pgAdmin {
	t.Helper()
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatalf("psql not in PATH: %v", err)
	}
	env := func(k, def string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return def
	}
	return pgAdmin{host: env("MAESTRO_DB_HOST", "127.0.0.1"), port: env("MAESTRO_DB_PORT", "5432"),
		user: env("MAESTRO_DB_USER", "postgres"), password: os.Getenv("MAESTRO_DB_PASSWORD"),
		name: env("MAESTRO_DB_NAME", "maestro_bundle_adapter")}
}

// query runs sql in database and returns its rows, fields split at '|'.
func (p pgAdmin) query(database, sql string) ([][]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "psql", "-h", p.host, "-p", p.port, "-U", p.user, "-d", database,
		"-X", "-v", "ON_ERROR_STOP=1", "-qtA", "-F", "|", "-c", sql)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+p.password, "PGCONNECT_TIMEOUT=5",
		"PGOPTIONS=-c client_min_messages=warning")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("psql %q: %w: %s", sql, err, out)
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" {
			rows = append(rows, strings.Split(line, "|"))
		}
	}
	return rows, nil
}

func (p pgAdmin) mustQuery(t *testing.T, database, sql string) [][]string {
	t.Helper()
	rows, err := p.query(database, sql)
	if err != nil {
		t.Fatalf("%v%s", err, p.disturbed(t))
	}
	return rows
}

// postmasterStart is when PostgreSQL (re)started.
func (p pgAdmin) postmasterStart(t *testing.T) string {
	t.Helper()
	rows, err := p.query("postgres", "select pg_postmaster_start_time()")
	if err != nil || len(rows) != 1 {
		return fmt.Sprintf("unknown (%v)", err)
	}
	return rows[0][0]
}

// disturbed says, for a failure message, whether PostgreSQL restarted
// since the test began (another run's fault, e.g. a soak's).
func (p pgAdmin) disturbed(t *testing.T) string {
	t.Helper()
	if now := p.postmasterStart(t); now != p.postmaster {
		return fmt.Sprintf(" (PostgreSQL restarted meanwhile, started %s: another run's fault? rerun)", now)
	}
	return ""
}

func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// requireConsumer makes sure the database is the tested server's: it holds
// the consumer just registered.
func (p pgAdmin) requireConsumer(t *testing.T, consumer string) {
	t.Helper()
	rows := p.mustQuery(t, p.name, "select count(*) from consumers where name = "+literal(consumer))
	if len(rows) != 1 || rows[0][0] != "1" {
		t.Fatalf("database %s does not hold consumer %s: not the tested Maestro's (set MAESTRO_DB_NAME)", p.name, consumer)
	}
}

func (p pgAdmin) allowConnections(t *testing.T, allow bool) {
	t.Helper()
	if _, err := p.query("postgres", p.allowSQL(allow)); err != nil {
		t.Fatalf("allow connections to %s %t: %v%s", p.name, allow, err, p.disturbed(t))
	}
}

func (p pgAdmin) allowSQL(allow bool) string {
	ident := `"` + strings.ReplaceAll(p.name, `"`, `""`) + `"`
	return fmt.Sprintf("alter database %s with allow_connections %t", ident, allow)
}

// restoreConnections lets connections in again, retrying for 2 minutes
// (PostgreSQL may be restarting under another run's fault).
func (p pgAdmin) restoreConnections(t *testing.T) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		_, err := p.query("postgres", p.allowSQL(true))
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("DATABASE %s LEFT REFUSING CONNECTIONS: %v; run: psql -h %s -p %s -U %s -d postgres -c '%s'",
				p.name, err, p.host, p.port, p.user, p.allowSQL(true))
			return
		}
		time.Sleep(time.Second)
	}
}

func (p pgAdmin) terminate(t *testing.T, pid int) {
	t.Helper()
	rows := p.mustQuery(t, "postgres", fmt.Sprintf("select pg_terminate_backend(%d)", pid))
	if len(rows) != 1 || rows[0][0] != "t" {
		t.Fatalf("terminate backend %d: %v", pid, rows)
	}
}

// pqBackend is one of Maestro's lib/pq LISTEN connections: the last query
// of each is its LISTEN, or the empty query lib/pq pings with (Maestro's
// pgx pool pings with "-- ping").
type pqBackend struct {
	pid     int
	query   string
	started time.Time
}

func (b pqBackend) String() string { return fmt.Sprintf("%d %q", b.pid, b.query) }

func (p pgAdmin) pqBackends(t *testing.T) ([]pqBackend, error) {
	t.Helper()
	rows, err := p.query("postgres", "select pid, query, extract(epoch from backend_start) from pg_stat_activity "+
		"where datname = "+literal(p.name)+" and backend_type = 'client backend' and (query = '' or query like 'LISTEN %') order by pid")
	if err != nil {
		return nil, err
	}
	var out []pqBackend
	for _, r := range rows {
		if len(r) != 3 {
			return nil, fmt.Errorf("pg_stat_activity row %q", r)
		}
		pid, err := strconv.Atoi(r[0])
		if err != nil {
			return nil, err
		}
		epoch, err := strconv.ParseFloat(r[2], 64)
		if err != nil {
			return nil, err
		}
		out = append(out, pqBackend{pid: pid, query: r[1], started: time.UnixMicro(int64(epoch * 1e6))})
	}
	return out, nil
}

const listenEvents = `LISTEN "events"`

// eventsListener returns the backend of Maestro's LISTEN "events"
// connection and its other lib/pq connections. pg_stat_activity shows a
// connection's last query: Maestro pings its listeners every 10 s without
// notifications, after which it is lib/pq's empty query, and a lib/pq
// listener Maestro closed while it waited to reconnect may have connected
// after all, listening on "events" for no one, never pinged. So every lib/pq
// connection of the database (the listeners of "events" and
// "status_events"; with a message broker, "server_instances" too) is
// terminated once, while nothing is written: a closed listener is gone for
// good, Maestro's reconnect and show their LISTEN.
func (p pgAdmin) eventsListener(t *testing.T) (int, []pqBackend) {
	t.Helper()
	find := func() (int, []pqBackend, error) {
		all, err := p.pqBackends(t)
		if err != nil {
			return 0, nil, err
		}
		i := slices.IndexFunc(all, func(b pqBackend) bool { return b.query == listenEvents })
		if i < 0 || slices.ContainsFunc(all[i+1:], func(b pqBackend) bool { return b.query == listenEvents }) {
			return 0, all, fmt.Errorf("no single %s in %v (two: a closed lib/pq listener that reconnected "+
				"listens too)", listenEvents, all)
		}
		pid := all[i].pid
		return pid, slices.Delete(all, i, i+1), nil
	}
	all, err := p.pqBackends(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatalf("no lib/pq connection on database %s: not the tested Maestro's?", p.name)
	}
	for _, b := range all { // one gone meanwhile answers false
		p.mustQuery(t, "postgres", fmt.Sprintf("select pg_terminate_backend(%d)", b.pid))
	}
	t.Logf("lib/pq connections %v terminated once to show which listens on \"events\"", all)
	// lib/pq reconnects, then Maestro replaces the listener: wait for one
	// connection listening on "events", and the same connections 2 s on.
	var pid int
	var others, last []pqBackend
	eventually(t, time.Minute, "Maestro's listeners back", func() error {
		now, err := p.pqBackends(t)
		if err != nil {
			return err
		}
		settled := slices.EqualFunc(now, last, func(a, b pqBackend) bool { return a.pid == b.pid })
		last = now
		if !settled {
			time.Sleep(2 * time.Second)
			return fmt.Errorf("connections %v", now)
		}
		pid, others, err = find()
		return err
	})
	return pid, others
}

// requireListenerAway requires that the backend is gone and that no other
// listens on "events".
func (p pgAdmin) requireListenerAway(t *testing.T, gone int) {
	t.Helper()
	eventually(t, 5*time.Second, "listener away", func() error {
		all, err := p.pqBackends(t)
		if err != nil {
			return err
		}
		for _, b := range all {
			if b.pid == gone || b.query == listenEvents {
				return fmt.Errorf("listening: %v", b)
			}
		}
		return nil
	})
}

// startedSince describes the lib/pq connections started since.
func (p pgAdmin) startedSince(t *testing.T, since time.Time, at func(time.Time) string) string {
	t.Helper()
	all, err := p.pqBackends(t)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, b := range all {
		if b.started.After(since) {
			out = append(out, fmt.Sprintf("%d %q started %s", b.pid, b.query, at(b.started)))
		}
	}
	return strings.Join(out, ", ")
}

// subset says whether every backend of a is in b.
func subset(a, b []pqBackend) bool {
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y pqBackend) bool { return y.pid == x.pid }) {
			return false
		}
	}
	return true
}
