package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/broker/rabbitmq"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
)

// replicaConsumers is how many consumers (each with its own real agent) the
// replica test spreads its clusters over.
const replicaConsumers = 10

// Two replicas on one queue, 1,000 events over 100 clusters with
// recreations in flight: every bundle converges to the desired generation,
// exactly one delete per recreation (no bundle that already carries the
// desired fingerprint is deleted), and no event is lost.
//
// A real agent loses a few deletions (1-5 of 100 in earlier runs;
// docs/reliability.md). The recreate rule's deletion_deadline is 1m here,
// so such a deletion is stalled after a minute and its delete is sent again
// (redeletes), at most the bounded number of times. A cluster still not
// converged must be one the agent provably lost (agentLostDeletion); the
// test then applies the operator's remedy, restarting that agent, and the
// cluster must converge. The log says how many needed it. A converged
// cluster whose generation-2 Job does not show must be one whose old Job
// the agent orphaned (orphanedJob); the test deletes that Job and restarts
// the agent, and the Job must then show.
//
// The clusters are spread over ten consumers, each served by its own real
// `maestro agent` (twenty bundles each), as hosted clusters spread over
// management clusters; TestOneAgentHundredRecreations puts all of them on
// one agent.
func TestTwoReplicasConverge(t *testing.T) {
	st := requireStack(t)
	recreateAndConverge(t, st, startAgents(t, unique("heal-rep"), replicaConsumers))
}

// All 100 clusters on one real agent, recreating at once. Maestro's gRPC
// broker blocks every subscriber while one subscriber's 100-slot channel is
// full, and 100 recreations at once filled it: 60 of 100 clusters had not
// converged after 30 rounds. The per-consumer write budget
// (maestroclient.WriteBudget) keeps each replica's writes of one consumer
// to a quarter of that channel at once. In this change's runs the stall
// did not come back with the budget, nor without it (docs/reliability.md):
// the test guards convergence, it does not isolate the budget. Deletions
// the agent loses are handled as in TestTwoReplicasConverge.
//
// The real agent loses many of these deletions (81 and 77 of 100 on a
// machine shared with a load bench, 35 on a quiet one, 2026-11-30): re-sent deletes do not recover them, one restart of the
// agent did every time, and their Jobs then showed within seconds to two
// minutes (docs/reliability.md).
func TestOneAgentHundredRecreations(t *testing.T) {
	st := requireStack(t)
	recreateAndConverge(t, st, startAgents(t, unique("heal-one"), 1))
}

// recreationDeadline is the recreate rule's deletion_deadline in the
// replica tests: a lost deletion's delete is sent again after it.
const recreationDeadline = "1m"

// recreateAndConverge runs two replicas on one queue over 100 clusters
// placed round-robin on consumers: all applied at generation 1, then all
// recreated at generation 2 with Sentinel-like rounds until they converge.
func recreateAndConverge(t *testing.T, st *stack, consumers []string) {
	api := newAPI(t)
	topic := unique("e2e-")
	dir := newAdapterDir(t, st, api, topic, rabbitBroker(st, topic))
	consumerFromCluster(t, dir)
	shortenDeletionDeadline(t, dir, recreationDeadline)
	a := startAdapter(t, st, dir, topic)
	b := startAdapter(t, st, dir, topic)
	kc := kubeClient(t, st)
	const clusters, eventsEach = 100, 10
	ids := make([]string, clusters)
	placement := map[string]map[string]any{}
	for i := range ids {
		ids[i] = unique("r")
		placement[ids[i]] = map[string]any{"consumer": consumers[i%len(consumers)]}
		api.setCluster(ids[i], 1, placement[ids[i]])
	}
	send := replicaPublisher(t, st, topic)
	for _, id := range ids {
		send(id, 1)
	}
	waitApplied(t, api, ids, 1, 180*time.Second, true)
	writes := func(verb string) float64 {
		return a.metric("bundle_adapter_maestro_requests_total", `verb="`+verb+`"`) +
			b.metric("bundle_adapter_maestro_requests_total", `verb="`+verb+`"`)
	}
	deletesBefore := writes("delete")
	for _, id := range ids {
		api.setCluster(id, 2, placement[id])
	}
	agentLost := newLostDeletions(t, st, kc, "e2e-"+topic, placement)
	// Like Sentinel, resend the event of every cluster not yet reconciled
	// about every 10 s: a recreation continues only on the next event after
	// Maestro's 404, which comes when the agent's deletion (foreground, on
	// its own backoff) is done. At least 10 events per cluster, at most 20
	// rounds: the three re-sent deletes of a deletion stalled from the start
	// go out by 3m15s.
	rounds := sentinelRounds(t, api, ids, send, eventsEach, 20)
	waitApplied(t, api, ids, 2, 30*time.Second, false)
	pending := notApplied(api, ids, 2)
	lost, unexplained := []string{}, agentLost.unexplained(pending)
	for _, id := range pending {
		if why := unexplained[id]; why != nil {
			t.Errorf("cluster %s not converged: %v (last status %v)\n%s", id, why, api.LastStatus(id), agentLost.describe(id))
			continue
		}
		lost = append(lost, id)
	}
	t.Logf("%d of %d clusters converged in %d rounds; %v deletes re-sent for stalled deletions",
		clusters-len(pending), clusters, rounds, writes("redelete"))
	if len(lost) > 0 {
		// The re-sent deletes reached the agent (its log shows each
		// delete_request) but it confirmed none of these: the operator's
		// remedy (docs/reliability.md) is to restart the agent, whose resync
		// gets every deleting bundle again. The resync's deletions run
		// into the same race, so a restart can lose some again: like an
		// operator whose alert fires again, restart while lost deletions
		// remain, at most maxAgentRestarts times.
		healByRestarts(t, api, send, placement, lost, agentLost)
	}
	pending = notApplied(api, ids, 2)
	redeletes := writes("redelete")
	if deletes := writes("delete") - deletesBefore; deletes != clusters {
		t.Errorf("%v deletes for %d recreations, want exactly one each", deletes, clusters)
	}
	// The prompt re-send and 3 attempts (the default redeletes), each sent
	// by the events in its 15 s window: with 10 s rounds at most 2 per
	// window, for each cluster.
	if maxRedeletes := float64(clusters * (1 + 3) * 2); redeletes > maxRedeletes {
		t.Errorf("%v deletes re-sent, want at most %v", redeletes, maxRedeletes)
	}
	// Applied in the status means the adapter's writes are done, not that
	// the agent has applied them: after a restart the agent works through
	// the resync's deletions and the new bundles at once (a Job was seen
	// created 23 s after its bundle reached the agent), so each cluster's
	// generation-2 Job gets jobWait to show.
	var converged []string
	for _, id := range ids {
		if !slices.Contains(pending, id) {
			converged = append(converged, id)
		}
	}
	if stale := waitJobs(kc, converged, jobWait); len(stale) > 0 {
		healOrphans(t, kc, agentLost, stale)
	}
	eventually(t, 60*time.Second, "the queue drained (no event lost or stuck)", func() error {
		return queueEmpty(topic + "-e2e")
	})
	if a.metric("bundle_adapter_events_total") == 0 || b.metric("bundle_adapter_events_total") == 0 {
		t.Errorf("both replicas must take part: %v and %v events", a.metric("bundle_adapter_events_total"), b.metric("bundle_adapter_events_total"))
	}
}

// jobWait bounds how long after convergence the replica tests wait for the
// agent to have applied every generation-2 Job.
const jobWait = 2 * time.Minute

// waitJobs waits up to wait for the validation Job of every cluster of ids
// to be at generation 2 and not deleting, and returns the clusters whose
// Job is not.
func waitJobs(kc *kubernetes.Clientset, ids []string, wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	var stale []string
	for _, id := range ids {
		for {
			_, gen, deleting, err := jobState(kc, "validate-"+id)
			if err == nil && gen == "2" && !deleting {
				break
			}
			if time.Now().After(deadline) {
				stale = append(stale, id)
				break
			}
			time.Sleep(time.Second)
		}
	}
	return stale
}

// healOrphans handles the converged clusters whose generation-2 Job did
// not show: each must be one whose old Job the agent orphaned
// (orphanedJob), else the test fails with what is known of it. For
// the orphans it applies the operator's remedy, deleting the orphaned Job
// and restarting its agent (whose apply of the new bundle then starts
// without the backoff the failed updates built up), and each cluster's
// generation-2 Job must then show within jobWait.
func healOrphans(t *testing.T, kc *kubernetes.Clientset, agentLost *lostDeletions, stale []string) {
	t.Helper()
	var orphans, agents []string
	for _, id := range stale {
		if err := agentLost.orphanedJob(id); err != nil {
			t.Errorf("cluster %s: no generation-2 Job %v after convergence: %v\n%s", id, jobWait, err, agentLost.describe(id))
			continue
		}
		t.Logf("cluster %s: the agent orphaned its generation-1 Job (remedy: delete it, restart the agent)\n%s", id, agentLost.describe(id))
		if err := kc.BatchV1().Jobs("default").Delete(t.Context(), "validate-"+id, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("delete orphaned job validate-%s: %v", id, err)
		}
		orphans = append(orphans, id)
		if c := agentLost.placement[id]["consumer"].(string); !slices.Contains(agents, c) {
			agents = append(agents, c)
		}
	}
	if len(orphans) == 0 {
		return
	}
	restartAgents(t, agents)
	for _, id := range waitJobs(kc, orphans, jobWait) {
		t.Errorf("cluster %s: no generation-2 Job %v after its orphaned Job was deleted and its agent restarted\n%s",
			id, jobWait, agentLost.describe(id))
	}
}

// maxAgentRestarts bounds the operator's remedy in the replica tests.
const maxAgentRestarts = 3

// healByRestarts restarts the agents of the clusters whose deletion the
// agent lost until they converge, at most maxAgentRestarts times; a cluster
// still pending after a restart must again be a deletion the agent lost.
func healByRestarts(t *testing.T, api *hyperfleetAPI, send func(string, int), placement map[string]map[string]any,
	lost []string, agentLost *lostDeletions) {
	t.Helper()
	for restart := 1; len(lost) > 0; restart++ {
		if restart > maxAgentRestarts {
			for _, id := range lost {
				t.Errorf("cluster %s not converged after %d agent restarts (last status %v)", id, maxAgentRestarts, api.LastStatus(id))
			}
			return
		}
		var agents []string
		for _, id := range lost {
			if c := placement[id]["consumer"].(string); !slices.Contains(agents, c) {
				agents = append(agents, c)
			}
		}
		t.Logf("restart %d of at most %d: the agent lost %d deletions the re-sent deletes did not recover (%v); restarting agents %v",
			restart, maxAgentRestarts, len(lost), lost, agents)
		restartAgents(t, agents)
		sentinelRounds(t, api, lost, send, 0, 10)
		waitApplied(t, api, lost, 2, 30*time.Second, false)
		pending := notApplied(api, lost, 2)
		unexplained := agentLost.unexplained(pending)
		lost = lost[:0]
		for _, id := range pending {
			if why := unexplained[id]; why != nil {
				t.Errorf("cluster %s not converged after restart %d: %v (last status %v)\n%s", id, restart, why, api.LastStatus(id), agentLost.describe(id))
				continue
			}
			lost = append(lost, id)
		}
	}
}

// sentinelRounds resends, about every 10 s, the event of every cluster of
// ids (all of them for the first `all` rounds, then those not applied at
// generation 2) until none is left after those rounds, at most max rounds.
// It returns the rounds sent.
func sentinelRounds(t *testing.T, api *hyperfleetAPI, ids []string, send func(string, int), all, max int) int {
	t.Helper()
	rounds, sent := 0, 0
	for ; rounds < max; rounds++ {
		pending := notApplied(api, ids, 2)
		if rounds >= all-1 && len(pending) == 0 {
			break
		}
		targets := ids
		if rounds >= all-1 {
			targets = pending
		}
		for _, id := range targets {
			send(id, 2)
			sent++
		}
		time.Sleep(10 * time.Second)
	}
	t.Logf("%d generation-2 events sent in %d rounds", sent, rounds)
	return rounds
}

// restartAgents stops and starts the real agents of the named consumers
// (hack/agent.sh), as an operator restarts a stuck agent.
func restartAgents(t *testing.T, names []string) {
	t.Helper()
	for _, verb := range []string{"stop", "start"} {
		if out, err := exec.Command("../hack/agent.sh", append([]string{verb}, names...)...).CombinedOutput(); err != nil {
			t.Fatalf("hack/agent.sh %s: %v\n%s", verb, err, out)
		}
	}
}

// shortenDeletionDeadline sets the recreate rule's deletion_deadline in the
// task config of dir.
func shortenDeletionDeadline(t *testing.T, dir, deadline string) {
	t.Helper()
	path := stacktest.FilesIn(dir).Task
	task := readFile(t, path)
	if !strings.Contains(task, "deletion_deadline: 10m") {
		t.Fatalf("%s: no deletion_deadline: 10m to shorten; update shortenDeletionDeadline", path)
	}
	writeFile(t, path, strings.Replace(task, "deletion_deadline: 10m", "deletion_deadline: "+deadline, 1))
}

// lostDeletions tells the clusters whose old validation bundle the agent
// lost the deletion of (see agentLostDeletion). sdk-go's agent store has
// that race: a status patch of the work racing the delete event overwrites
// the deletion, so the agent deletes the Job but never reports the bundle
// deleted, and at its next requeue applies the old Job again (see
// docs/reliability.md). The adapter waits (RecreationPending, then
// RecreationStalled) and never creates the new bundle meanwhile; past the
// deadline it sends the delete again (verb redelete), which recovers it.
type lostDeletions struct {
	t         *testing.T
	mc        *maestroclient.Client
	kc        *kubernetes.Clientset
	placement map[string]map[string]any
}

func newLostDeletions(t *testing.T, st *stack, kc *kubernetes.Clientset, sourceID string, placement map[string]map[string]any) *lostDeletions {
	t.Helper()
	mc, err := maestroclient.New(t.Context(), maestroclient.Options{GRPCAddress: st.grpcAddr, GRPC: maestroclient.TLSOptions{Insecure: true},
		HTTPURL: st.restURL, HTTP: maestroclient.TLSOptions{Insecure: true}, SourceID: sourceID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mc.Close() })
	return &lostDeletions{t: t, mc: mc, kc: kc, placement: placement}
}

// unexplained returns, for each cluster of ids whose deletion the agent did
// not lose, why not.
func (l *lostDeletions) unexplained(ids []string) map[string]error {
	out := map[string]error{}
	for _, id := range ids {
		if err := agentLostDeletion(l.t, l.mc, l.kc, l.placement[id]["consumer"].(string), id); err != nil {
			out[id] = err
		}
	}
	return out
}

// lostAfter is how long a deletion may take before the replica test calls
// it lost: a real agent finishes one in seconds.
const lostAfter = 2 * time.Minute

// agentLostDeletion returns nil when the agent has provably lost the
// deletion of cluster id's old validation bundle: Maestro has held that
// bundle (generation 1) deleting for over lostAfter, while the agent has
// either deleted the Job (and never reported the bundle deleted) or applied
// it again, with the old generation, after the deletion began. Neither can
// be the adapter's doing: it deleted the bundle once and Maestro keeps it
// until the agent reports it gone.
func agentLostDeletion(t *testing.T, mc *maestroclient.Client, kc *kubernetes.Clientset, consumer, id string) error {
	work, err := mc.Get(t.Context(), consumer, id+"-validation")
	if err != nil {
		return fmt.Errorf("old bundle: %w", err)
	}
	if work.DeletionTimestamp == nil || work.Annotations["hyperfleet.io/generation"] != "1" {
		return fmt.Errorf("bundle %s-validation is not an old bundle being deleted (deletion %v, generation %q)",
			id, work.DeletionTimestamp, work.Annotations["hyperfleet.io/generation"])
	}
	if age := time.Since(work.DeletionTimestamp.Time); age < lostAfter {
		return fmt.Errorf("deletion began %v ago: not overdue yet", age.Round(time.Second))
	}
	job, err := kc.BatchV1().Jobs("default").Get(t.Context(), "validate-"+id, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil // deleted by the agent, never reported
	case err != nil:
		return fmt.Errorf("job: %w", err)
	}
	if gen := jobGeneration(job); gen != "1" || !job.CreationTimestamp.After(work.DeletionTimestamp.Time) {
		return fmt.Errorf("job generation %q created %v, deletion began %v: neither deleted nor re-applied by the agent",
			gen, job.CreationTimestamp, work.DeletionTimestamp)
	}
	return nil // re-applied by the agent
}

// startAgents registers n consumers named prefix-0.. and starts a real
// agent for each (hack/agent.sh); they are stopped when the test ends.
func startAgents(t *testing.T, prefix string, n int) []string {
	t.Helper()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	out, err := exec.Command("../hack/agent.sh", append([]string{"start"}, names...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("hack/agent.sh start: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("../hack/agent.sh", append([]string{"stop"}, names...)...).CombinedOutput(); err != nil {
			t.Logf("hack/agent.sh stop: %v\n%s", err, out)
		}
	})
	return names
}

// consumerFromCluster makes the task config in dir place each cluster on
// the consumer the HyperFleet API names for it (cluster.consumer), instead
// of the one consumer of MAESTRO_CONSUMER.
func consumerFromCluster(t *testing.T, dir string) {
	t.Helper()
	path := stacktest.FilesIn(dir).Task
	task, err := stacktest.ConsumerFromCluster([]byte(readFile(t, path)), "")
	if err != nil {
		t.Fatalf("%s: %v; update consumerFromCluster", path, err)
	}
	writeFile(t, path, string(task))
}

// replicaPublisher returns a function publishing a reconcile event for a
// cluster at a generation on one shared connection.
func replicaPublisher(t *testing.T, st *stack, topic string) func(id string, gen int) {
	t.Helper()
	pub, err := rabbitmq.NewPublisher(st.rabbitURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pub.Close() })
	return func(id string, gen int) {
		if err := pub.Publish(context.Background(), topic, "cluster.reconcile", reconcileEvent(id, gen), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// waitApplied waits (sending nothing) until every cluster's last status is
// Applied True at the generation. Past the timeout it fails the test when
// must is set, and returns otherwise.
func waitApplied(t *testing.T, api *hyperfleetAPI, ids []string, gen int, timeout time.Duration, must bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		missing := notApplied(api, ids, gen)
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			if must {
				t.Fatalf("after %v: %d of %d clusters not applied at generation %d", timeout, len(missing), len(ids), gen)
			}
			return
		}
		time.Sleep(time.Second)
	}
}

// notApplied lists the clusters whose last status is not Applied True at gen.
func notApplied(api *hyperfleetAPI, ids []string, gen int) []string {
	var out []string
	for _, id := range ids {
		s := api.LastStatus(id)
		if s == nil || condition(s, "Applied") != "True/BundlesApplied" || fmt.Sprint(s["observed_generation"]) != fmt.Sprint(gen) {
			out = append(out, id)
		}
	}
	return out
}

func queueEmpty(queue string) error {
	out, err := exec.Command("rabbitmqctl", "-q", "list_queues", "name", "messages").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == queue && f[1] != "0" {
			return fmt.Errorf("%s holds %s messages", queue, f[1])
		}
	}
	return nil
}

// jobGeneration is the GENERATION env value of a validation Job.
func jobGeneration(job *batchv1.Job) string {
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		if e.Name == "GENERATION" {
			return e.Value
		}
	}
	return ""
}

// orphanedJob returns nil when cluster id's stale Job is provably one the
// agent orphaned: Maestro holds the generation-2 bundle (not deleting, so
// the adapter's recreation is done: it deleted the old bundle once and
// created this one on Maestro's 404), while the cluster still runs the
// generation-1 Job, not deleting, owned by no AppliedManifestWork the
// agent now has for the bundle: its owner was the old bundle's, which the
// agent deleted without deleting the Job (it deletes only what that
// AppliedManifestWork's status records as applied), and Kubernetes'
// garbage collector has not collected it; or owned by the AppliedManifestWork
// the agent now has, but a leftover of the old bundle (leftoverJob). The
// agent's update of the Job to generation 2 then fails, a Job's pod
// template being immutable.
func (l *lostDeletions) orphanedJob(id string) error {
	consumer := l.placement[id]["consumer"].(string)
	work, err := l.mc.Get(l.t.Context(), consumer, id+"-validation")
	if err != nil {
		return fmt.Errorf("new bundle: %w", err)
	}
	if work.DeletionTimestamp != nil || work.Annotations["hyperfleet.io/generation"] != "2" {
		return fmt.Errorf("bundle %s-validation is not the new bundle (deletion %v, generation %q)",
			id, work.DeletionTimestamp, work.Annotations["hyperfleet.io/generation"])
	}
	job, err := l.kc.BatchV1().Jobs("default").Get(l.t.Context(), "validate-"+id, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("job: %w", err)
	}
	if gen := jobGeneration(job); gen != "1" || job.DeletionTimestamp != nil {
		return fmt.Errorf("job generation %q, deletion %v: not the old Job left running", gen, job.DeletionTimestamp)
	}
	current, err := appliedWorks(l, string(work.UID))
	if err != nil {
		return err
	}
	for _, owner := range job.OwnerReferences {
		for _, a := range current {
			if owner.UID == a.UID {
				if err := leftoverJob(work, job); err != nil {
					return fmt.Errorf("job is owned by the bundle's current AppliedManifestWork %s: not orphaned, and %w", a.Name, err)
				}
				return nil
			}
		}
	}
	return nil
}

// leftoverJob returns nil when job, owned by the new bundle's
// AppliedManifestWork, is provably a leftover of the old bundle that the
// agent took over rather than one it made for the new bundle: the Job was
// created no later than the new bundle (so under the old one), and the
// agent reports the new bundle's Job manifest not applied because the pod
// template is immutable (so the bundle carries another template, and the
// agent tried to apply it onto the old Job). Both AppliedManifestWorks are
// named after the bundle's uid, which Maestro derives from consumer and
// name, so a recreation's AppliedManifestWork is the old one's name; ocm's
// ManifestWorkController syncs from its informer's copy, and a sync that
// started before the deletion creates the AppliedManifestWork again
// (lister miss) and applies the Job under it after the finalizer ran
// (docs/reliability.md). Seen on the CI run of 2026-12-07 (stop 56).
func leftoverJob(work *workv1.ManifestWork, job *batchv1.Job) error {
	if work.CreationTimestamp.IsZero() {
		return fmt.Errorf("the new bundle has no creation time to compare")
	}
	if job.CreationTimestamp.After(work.CreationTimestamp.Time) {
		return fmt.Errorf("the job (created %s) is newer than the new bundle (created %s)",
			job.CreationTimestamp.UTC().Format(time.TimeOnly), work.CreationTimestamp.UTC().Format(time.TimeOnly))
	}
	for _, m := range work.Status.ResourceStatus.Manifests {
		if m.ResourceMeta.Kind != "Job" || m.ResourceMeta.Name != job.Name {
			continue
		}
		for _, c := range m.Conditions {
			if c.Type == workv1.ManifestApplied && c.Status == metav1.ConditionFalse && strings.Contains(c.Message, "field is immutable") {
				return nil
			}
		}
	}
	return fmt.Errorf("the agent does not report the new bundle's job failing on an immutable field")
}
