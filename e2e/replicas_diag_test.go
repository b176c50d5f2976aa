package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// agentLogLines bounds how many of the agent's log lines about one bundle
// describe prints.
const agentLogLines = 40

// agentLogLineChars bounds each agent log line describe prints: a received
// event's line holds the whole bundle.
const agentLogLineChars = 400

// describe returns what the replica tests know about cluster id's
// validation Job and bundle, for a failure message: the Job as the
// kube-apiserver holds it, the bundle as Maestro holds it (generation,
// deletion, conditions the agent reported) and the agent's log lines
// naming the bundle. A check that fails after convergence cannot be
// explained afterwards without them: CI keeps only the test's output.
func (l *lostDeletions) describe(id string) string {
	consumer := l.placement[id]["consumer"].(string)
	var b strings.Builder
	fmt.Fprintf(&b, "cluster %s on consumer %s:\n", id, consumer)
	b.WriteString(describeJob(l, id))
	uid := describeBundle(&b, l, consumer, id+"-validation")
	needles := []string{"validate-" + id}
	if uid != "" {
		b.WriteString(describeAppliedWorks(l, uid))
		needles = append(needles, uid)
	}
	b.WriteString(agentLogAbout(consumer, needles))
	return b.String()
}

func describeJob(l *lostDeletions, id string) string {
	job, err := l.kc.BatchV1().Jobs("default").Get(l.t.Context(), "validate-"+id, metav1.GetOptions{})
	if err != nil {
		return fmt.Sprintf("  job validate-%s: %v\n", id, err)
	}
	owners := []string{}
	for _, o := range job.OwnerReferences {
		owners = append(owners, fmt.Sprintf("%s/%s uid=%s", o.Kind, o.Name, o.UID))
	}
	return fmt.Sprintf("  job validate-%s: uid=%s generation=%q created=%s deleting=%v owners=%v\n",
		id, job.UID, jobGeneration(job), job.CreationTimestamp.UTC().Format("15:04:05.000"), job.DeletionTimestamp, owners)
}

// describeBundle writes the bundle as Maestro holds it and returns its
// UID, which names it in the agent's log and its AppliedManifestWork ("" when
// Maestro has none).
func describeBundle(b *strings.Builder, l *lostDeletions, consumer, name string) string {
	work, err := l.mc.Get(l.t.Context(), consumer, name)
	if err != nil {
		fmt.Fprintf(b, "  bundle %s: %v\n", name, err)
		return ""
	}
	fmt.Fprintf(b, "  bundle %s: uid %s, generation annotation %q, resourceVersion %s, created %s, deletion %v\n",
		name, work.UID, work.Annotations["hyperfleet.io/generation"], work.ResourceVersion,
		work.CreationTimestamp.UTC().Format("15:04:05"), work.DeletionTimestamp)
	for _, c := range work.Status.Conditions {
		fmt.Fprintf(b, "    condition %s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	for _, m := range work.Status.ResourceStatus.Manifests {
		for _, c := range m.Conditions {
			fmt.Fprintf(b, "    manifest %s/%s %s=%s %s: %s\n", m.ResourceMeta.Kind, m.ResourceMeta.Name, c.Type, c.Status, c.Reason, c.Message)
		}
	}
	return string(work.UID)
}

// appliedWorks returns the agent's AppliedManifestWorks of the bundle whose
// UID is uid (named <hub hash>-<uid>).
func appliedWorks(l *lostDeletions, uid string) ([]workv1.AppliedManifestWork, error) {
	raw, err := l.kc.CoreV1().RESTClient().Get().AbsPath("/apis/work.open-cluster-management.io/v1/appliedmanifestworks").DoRaw(l.t.Context())
	if err != nil {
		return nil, fmt.Errorf("appliedmanifestworks: %w", err)
	}
	var list workv1.AppliedManifestWorkList
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("appliedmanifestworks: %w", err)
	}
	var out []workv1.AppliedManifestWork
	for _, a := range list.Items {
		if strings.HasSuffix(a.Name, "-"+uid) {
			out = append(out, a)
		}
	}
	return out, nil
}

// describeAppliedWorks returns the bundle's AppliedManifestWorks (see
// appliedWorks): their UID, deletion and the resources they record as
// applied, which are all the agent deletes when the bundle is deleted.
func describeAppliedWorks(l *lostDeletions, uid string) string {
	works, err := appliedWorks(l, uid)
	if err != nil {
		return "  " + err.Error() + "\n"
	}
	if len(works) == 0 {
		return fmt.Sprintf("  no appliedmanifestwork for bundle uid %s\n", uid)
	}
	var b strings.Builder
	for _, a := range works {
		applied := []string{}
		for _, r := range a.Status.AppliedResources {
			applied = append(applied, fmt.Sprintf("%s/%s uid=%s", r.Resource, r.Name, r.UID))
		}
		fmt.Fprintf(&b, "  appliedmanifestwork %s: uid=%s created=%s deletion=%v finalizers=%v applied=%v\n",
			a.Name, a.UID, a.CreationTimestamp.UTC().Format("15:04:05"), a.DeletionTimestamp, a.Finalizers, applied)
	}
	return b.String()
}

// agentLogAbout returns the last agentLogLines lines of consumer's agent
// log (hack/agent.sh) that contain one of needles, each cut to
// agentLogLineChars.
func agentLogAbout(consumer string, needles []string) string {
	out, err := exec.Command("../hack/agent.sh", "log", consumer).Output()
	if err != nil {
		return fmt.Sprintf("  agent log of %s: %v\n", consumer, err)
	}
	path := strings.TrimSpace(string(out))
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("  agent log: %v\n", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if slices.ContainsFunc(needles, func(n string) bool { return strings.Contains(line, n) }) {
			if len(line) > agentLogLineChars {
				line = line[:agentLogLineChars] + "..."
			}
			lines = append(lines, line)
		}
	}
	if len(lines) > agentLogLines {
		lines = lines[len(lines)-agentLogLines:]
	}
	return fmt.Sprintf("  agent log %s, last %d lines naming %v:\n    %s\n", path, len(lines), needles, strings.Join(lines, "\n    "))
}
