package check

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Tolerances of the resource invariant: a replica is flat when, over its
// steady samples (outside every fault and the minute after it, and past
// its first minute), the least-squares slope of each measure is within
// these. A process whose steady samples cover less than MinSteady (time
// between consecutive samples both steady, not first to last) is not
// judged (its figures are still reported).
var Tolerances = struct {
	RSSMBPerMin, GoroutinesPerMin, FDsPerMin float64
	MinSteady                                time.Duration
}{RSSMBPerMin: 1, GoroutinesPerMin: 2, FDsPerMin: 1, MinSteady: 3 * time.Minute}

// Settle is the time after a fault's end still counted as "after" it (and
// not steady), and the warm-up at the start of a run and of a process.
const Settle = time.Minute

// Check proves or refutes the soak's invariants over h.
func Check(h *History) *Report {
	r := &Report{Published: len(h.Published), DeadLettered: len(h.DeadLetters)}
	last := lastPublished(h.Published)
	r.Clusters = len(last)
	puts := okStatuses(h.API)
	lost(r, h, puts)
	converged(r, h, last, puts)
	duplicates(r, h)
	movedBackwards(r, h, puts)
	writesResumed(r, h)
	faultsMade(r, h)
	deliveriesLost(r, h)
	redelivered(r, h)
	if len(h.Published) > 0 {
		r.MaestroReqPerEvent = h.Meta.MaestroRequests / float64(len(h.Published))
	}
	latency(r, h, puts)
	convergenceAfterFaults(r, h, puts)
	storms(r, h)
	resources(r, h)
	return r
}

// lastPublished is each cluster's last published event.
func lastPublished(ps []Published) map[string]Published {
	out := map[string]Published{}
	for _, p := range ps {
		if cur, ok := out[p.Cluster]; !ok || !p.At.Before(cur.At) {
			out[p.Cluster] = p
		}
	}
	return out
}

// splitDrain is each cluster's last event published in the rounds (up to
// Meta.PublishEnd; every event when it is not recorded) and when the
// drain, after it, first resent each cluster it resent.
func splitDrain(h *History) (rounds map[string]Published, resent map[string]time.Time) {
	end := h.Meta.PublishEnd
	var in []Published
	resent = map[string]time.Time{}
	for _, p := range h.Published {
		if end.IsZero() || !p.At.After(end) {
			in = append(in, p)
		} else if t, ok := resent[p.Cluster]; !ok || p.At.Before(t) {
			resent[p.Cluster] = p.At
		}
	}
	return lastPublished(in), resent
}

// okStatuses are the status PUTs answered 2xx, by cluster, in time order.
func okStatuses(api []APIRequest) map[string][]APIRequest {
	out := map[string][]APIRequest{}
	for _, a := range api {
		if a.Status && a.Code >= 200 && a.Code < 300 {
			out[a.Cluster] = append(out[a.Cluster], a)
		}
	}
	for _, v := range out {
		sort.SliceStable(v, func(i, j int) bool { return v[i].At.Before(v[j].At) })
	}
	return out
}

// lost: a cluster whose last generation published in the rounds was
// neither reported with a 2xx status before the drain first resent the
// cluster nor dead-lettered with a reason, and any message RabbitMQ still
// held at the end (neither acked nor dead-lettered). The drain resends a
// cluster behind its generation only after leaving it to the adapter for
// longer than its redelivery backoff (bench/soak drainQuiet), so a
// generation first reported after that resend is one the adapter lost and
// Sentinel's resend healed.
func lost(r *Report, h *History, puts map[string][]APIRequest) {
	dead := map[string]bool{}
	for _, d := range h.DeadLetters {
		if d.Reason != "" {
			dead[fmt.Sprintf("%s/%d", d.Cluster, d.Generation)] = true
		}
	}
	rounds, resent := splitDrain(h)
	var ids []string
	for id, p := range rounds {
		cut, wasResent := resent[id]
		if slices.ContainsFunc(puts[id], func(a APIRequest) bool {
			return a.Generation == p.Generation && (!wasResent || a.At.Before(cut))
		}) {
			continue
		}
		if dead[fmt.Sprintf("%s/%d", id, p.Generation)] {
			continue
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	held, queues := 0, []string{}
	for q, n := range h.Meta.QueueHeld {
		if n > 0 {
			held += n
			queues = append(queues, fmt.Sprintf("%s: %d", q, n))
		}
	}
	slices.Sort(queues)
	detail := "clusters whose last generation was neither reported (2xx, before any drain resend) nor dead-lettered: " + few(ids)
	if held > 0 {
		detail += fmt.Sprintf("; messages RabbitMQ still held at the end: %d (%s)", held, strings.Join(queues, ", "))
	}
	r.add("lost events", float64(len(ids)+held), "0", len(ids)+held == 0, "%s", detail)
}

// converged: every live cluster's newest 2xx status is of its last
// generation with Applied True, and Maestro holds its bundles at that
// generation, none deleting, each with its agent's Applied condition True
// (the adapter's Applied says its writes are done, not that the agent
// applied them); every deleted cluster reported Finalized True
// at its last generation and has no bundle left. A real agent's cluster
// must also hold its objects on the kube-apiserver (kubeNotConverged).
func converged(r *Report, h *History, last map[string]Published, puts map[string][]APIRequest) {
	held := map[string]Bundle{}
	for _, b := range h.Bundles {
		held[b.Name] = b
	}
	whys := map[string][]string{}
	for id, p := range last {
		if why := clusterState(h.Meta, id, p, puts[id], held); why != "" {
			whys[id] = append(whys[id], why)
		}
	}
	for id, why := range kubeNotConverged(h, last) {
		whys[id] = append(whys[id], "kube-apiserver: "+why)
	}
	// One entry per cluster, with every reason.
	bad := make([]string, 0, len(whys))
	for id, ws := range whys {
		bad = append(bad, id+": "+strings.Join(ws, " + "))
	}
	slices.Sort(bad)
	r.add("convergence", float64(len(bad)), "0 not converged", len(bad) == 0, "%d of %d clusters not converged: %s", len(bad), len(last), few(bad))
}

func clusterState(m Meta, id string, p Published, puts []APIRequest, held map[string]Bundle) string {
	if len(puts) == 0 {
		return "no status reported"
	}
	st := puts[len(puts)-1]
	if st.Generation != p.Generation {
		return fmt.Sprintf("newest status at generation %d, published %d", st.Generation, p.Generation)
	}
	for _, s := range m.BundleSuffixes {
		b, ok := held[id+s]
		switch {
		case p.Deleted && ok:
			return "bundle " + b.Name + " still in Maestro after the deletion"
		case p.Deleted:
		case !ok:
			return "bundle " + id + s + " missing in Maestro"
		case b.Deleting:
			return "bundle " + b.Name + " still deleting"
		case b.Applied != "True":
			return fmt.Sprintf("bundle %s not applied by its agent (Applied %q)", b.Name, b.Applied)
		case s == m.GenerationBundle && b.Generation != "" && b.Generation != fmt.Sprint(p.Generation):
			return fmt.Sprintf("bundle %s at generation %s, published %d", b.Name, b.Generation, p.Generation)
		}
	}
	if p.Deleted {
		if st.Finalized != "True" {
			return "deleted, newest status Finalized " + st.Finalized
		}
		return ""
	}
	if st.Applied != "True" {
		return "newest status Applied " + st.Applied
	}
	return ""
}

// duplicates: two bundles of one name in Maestro, a work received by an
// agent while the old work of its name was still held, two works (uids)
// of one name and fingerprint, or an object a real agent created twice on
// the kube-apiserver (kubeDuplicates). A create Maestro refused because a bundle
// of that name existed is not one (it reached no agent): see refused.
func duplicates(r *Report, h *History) {
	var found []string
	names := map[string]int{}
	for _, b := range h.Bundles {
		names[b.Consumer+"/"+b.Name]++
	}
	for n, c := range names {
		if c > 1 {
			found = append(found, fmt.Sprintf("maestro holds %d bundles %s", c, n))
		}
	}
	uids := map[string]map[string]bool{}
	for _, e := range h.Agents {
		if e.OldPresent {
			found = append(found, fmt.Sprintf("agent %s received %s (uid %s) while the old work was held", e.Consumer, e.Name, e.UID))
		}
		if e.Fingerprint == "" {
			continue
		}
		k := e.Consumer + "/" + e.Name + "@" + e.Fingerprint
		if uids[k] == nil {
			uids[k] = map[string]bool{}
		}
		uids[k][e.UID] = true
	}
	for k, u := range uids {
		if len(u) > 1 {
			found = append(found, fmt.Sprintf("agent received %d works %s", len(u), k))
		}
	}
	found = append(found, kubeDuplicates(h)...)
	slices.Sort(found)
	r.add("duplicates", float64(len(found)), "0", len(found) == 0, "%s", few(found))
	refused(r, h.Meta)
}

// RefusedCreates is the share of creates Maestro may refuse because a
// bundle of that name existed. Maestro refuses every create of a name it
// holds, deleting or not, so a create sent before Maestro's 404 reaches no
// agent: it shows only as a refusal, one per recreation whose delete the
// agent had not yet confirmed. Two replicas processing one cluster's
// events at once (a redelivered event and a newer one) may both read 404
// and both create: one is refused, rarely (1 in about 700 creates in the
// first 4-minute soak).
const RefusedCreates = 0.01

// refused: the creates Maestro refused, at most RefusedCreates of those it
// accepted.
func refused(r *Report, m Meta) {
	limit := RefusedCreates * m.Creates
	r.add("creates refused", m.CreatesRefused, fmt.Sprintf("<= %.0f%% of %v creates", 100*RefusedCreates, m.Creates),
		m.CreatesRefused <= limit, "creates Maestro refused because a bundle of that name existed (a create before the 404, or two replicas racing)")
}

func few(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	if len(s) > 5 {
		return strings.Join(s[:5], "; ") + fmt.Sprintf("; and %d more", len(s)-5)
	}
	return strings.Join(s, "; ")
}
