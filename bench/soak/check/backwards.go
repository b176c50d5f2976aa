package check

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"
)

// movedBackwards: a status or a bundle that moved to an older generation
// after a newer one (issue 41). Read from the recorded histories, each in
// its own time order:
//   - each cluster's status PUTs answered 2xx: an observed_generation older
//     than one the API had already accepted for it;
//   - each cluster's bundles as its simulated agent received them
//     (agents.jsonl, the hyperfleet.io/generation annotation of every add
//     or update of a work not being deleted): a bundle updated or created
//     at an older generation than one any bundle of its cluster (its
//     cluster label; the bundle alone when it has none) was received at
//     before. One event writes all of a cluster's bundles at its
//     generation, so this is an update back, a create (after a delete) at
//     an older generation, and also a stale event creating a bundle at the
//     old generation while the newer one's recreation was pending (its
//     other bundle already at the newer one). A work's name is Maestro's
//     resource id, the same for a bundle created again under its name; a
//     bundle is named from maestro.jsonl when Maestro still holds it;
//   - each Job a real agent created on the kube-apiserver (kube.jsonl,
//     its GENERATION): one created at an older generation than an earlier
//     one of its name.
//
// One entry per status or bundle, naming both generations and their times
// (the first time it moved back, and how many times it did).
func movedBackwards(r *Report, h *History, puts map[string][]APIRequest) {
	var statuses, bundles, objects []string
	for id, ps := range puts {
		var top newest
		var tr backTrack
		for _, p := range ps {
			tr.see(&top, p.Generation, p.At, "", "")
		}
		if tr.n > 0 {
			statuses = append(statuses, "status of "+id+": "+tr.String())
		}
	}
	names := map[string]string{} // Maestro's resource id: the bundle's name
	for _, b := range h.Bundles {
		names[b.Consumer+"/"+b.ID] = b.Name
	}
	byCluster := map[string][]AgentEvent{}
	for _, e := range h.Agents {
		if (e.Deleting && e.Kind != "delete") || e.Generation == "" {
			continue // a delete is kept: the work is gone until created again
		}
		k := e.Cluster
		if k == "" {
			k = "work " + e.Consumer + "/" + e.Name
		}
		byCluster[k] = append(byCluster[k], e)
	}
	for _, es := range byCluster {
		sort.SliceStable(es, func(i, j int) bool { return es[i].At.Before(es[j].At) })
		var top newest
		tracks := map[string]*backTrack{}
		var order []string
		for _, e := range es {
			g, err := strconv.Atoi(e.Generation)
			if err != nil {
				continue
			}
			short, long := bundleName(names, e)
			tr := tracks[long]
			if e.Kind == "delete" {
				if tr != nil {
					tr.gone = true
				}
				continue
			}
			how := "updated to"
			if e.Kind == "add" {
				how = "created at"
				if tr != nil {
					how = "created again at"
				}
			}
			if tr == nil {
				tr = &backTrack{}
				tracks[long] = tr
				order = append(order, long)
			}
			tr.see(&top, g, e.At, how, short)
		}
		for _, long := range order {
			if tr := tracks[long]; tr.n > 0 {
				bundles = append(bundles, long+": "+tr.String())
			}
		}
	}
	jobs := map[string][]KubeObject{}
	for _, o := range h.Kube {
		if o.Event != "added" || o.Generation == "" {
			continue
		}
		k := fmt.Sprintf("%s %s/%s", o.Kind, o.Namespace, o.Name)
		jobs[k] = append(jobs[k], o)
	}
	for k, objs := range jobs {
		sort.SliceStable(objs, func(i, j int) bool { return objs[i].At.Before(objs[j].At) })
		var top newest
		var tr backTrack
		for _, o := range objs {
			if g, err := strconv.Atoi(o.Generation); err == nil {
				tr.see(&top, g, o.At, "created again at", "")
			}
		}
		if tr.n > 0 {
			objects = append(objects, "kube-apiserver: "+k+": "+tr.String())
		}
	}
	slices.Sort(statuses)
	slices.Sort(bundles)
	slices.Sort(objects)
	found := slices.Concat(statuses, bundles, objects)
	r.add("moved backwards", float64(len(found)), "0", len(found) == 0,
		"%d statuses, %d bundles and %d kube-apiserver objects moved to an older generation after a newer one: %s",
		len(statuses), len(bundles), len(objects), few(found))
}

// bundleName is how an agent's work is named in a verdict: short, the
// bundle's name when Maestro still holds it (else its work name), and
// long, with its consumer and work name.
func bundleName(names map[string]string, e AgentEvent) (short, long string) {
	if n, ok := names[e.Consumer+"/"+e.Name]; ok {
		return n, "bundle " + n + " (consumer " + e.Consumer + ", work " + e.Name + ")"
	}
	if e.Cluster != "" {
		return "work " + e.Name, "bundle of cluster " + e.Cluster + " (consumer " + e.Consumer + ", work " + e.Name + ")"
	}
	return e.Name, "bundle " + e.Name + " (consumer " + e.Consumer + ")"
}

// newest is the newest generation seen of one history, when, and of what
// (a bundle of a cluster's; "" when the history is of one thing).
type newest struct {
	gen int
	at  time.Time
	of  string
	set bool
}

// backTrack is one status's, bundle's or object's first move back from
// the newest generation of its history, and how many moves back it made.
type backTrack struct {
	n         int // moves back: a repeat at the generation it is already back at is none
	last      int // the generation it was last seen at
	seen      bool
	gone      bool // deleted since: its next add is a create
	how       string
	gen, was  int
	at, wasAt time.Time
	wasOf     string
}

// see is generation g applied or reported at at to what of names; how
// says what a move back did ("updated to", "created at"; "" for a status).
// An agent sees a work's status changes as updates too, and a restarted
// agent sees every work it held added again by its resync, so an update or
// add of a work not deleted since, at the generation it was last seen at,
// is no move: a repeat at the generation it already moved back to, or a
// work still behind its cluster's newest (its recreation pending)
// reporting its status or re-sent. A create after the work was deleted is
// one when older.
func (t *backTrack) see(top *newest, g int, at time.Time, how, of string) {
	stayed := how != "" && t.seen && !t.gone && t.last == g
	switch {
	case !top.set || g > top.gen:
		*top = newest{gen: g, at: at, of: of, set: true}
	case g < top.gen && !stayed && (t.n == 0 || t.last != g):
		if t.n == 0 {
			t.how, t.gen, t.at, t.was, t.wasAt = how, g, at, top.gen, top.at
			if top.of != of {
				t.wasOf = top.of
			}
		}
		t.n++
	}
	t.last, t.seen, t.gone = g, true, false
}

func (t *backTrack) String() string {
	s := fmt.Sprintf("generation %d at %s after generation %d at %s", t.gen, stampMS(t.at), t.was, stampMS(t.wasAt))
	if t.wasOf != "" {
		s += " (" + t.wasOf + ")"
	}
	if t.how != "" {
		s = t.how + " " + s
	}
	if t.n > 1 {
		s += fmt.Sprintf(" (moved back %d times)", t.n)
	}
	return s
}

func stampMS(t time.Time) string { return t.UTC().Format("15:04:05.000") }
