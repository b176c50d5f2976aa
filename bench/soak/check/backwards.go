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
//   - each bundle as its simulated agent received it (agents.jsonl, the
//     hyperfleet.io/generation annotation of every add or update of a work
//     not being deleted, by consumer and work name: Maestro's resource id,
//     the same for a bundle created again under its name): an update back
//     to an older generation, or a create (after a delete) at an older
//     one. A bundle is named from maestro.jsonl when Maestro still holds
//     it, else by its cluster label;
//   - each Job a real agent created on the kube-apiserver (kube.jsonl,
//     its GENERATION): one created at an older generation than an earlier
//     one of its name.
//
// One entry per status or bundle, naming both generations and their times
// (the first time it moved back, and how many times it did).
func movedBackwards(r *Report, h *History, puts map[string][]APIRequest) {
	var statuses, bundles, objects []string
	for id, ps := range puts {
		var tr backTrack
		for _, p := range ps {
			tr.see(p.Generation, p.At, "")
		}
		if tr.n > 0 {
			statuses = append(statuses, "status of "+id+": "+tr.String())
		}
	}
	names := map[string]string{} // Maestro's resource id: the bundle's name
	for _, b := range h.Bundles {
		names[b.Consumer+"/"+b.ID] = b.Name
	}
	works := map[string][]AgentEvent{}
	for _, e := range h.Agents {
		if e.Kind == "delete" || e.Deleting || e.Generation == "" {
			continue
		}
		k := "bundle " + e.Name + " (consumer " + e.Consumer + ")"
		if n, ok := names[e.Consumer+"/"+e.Name]; ok {
			k = "bundle " + n + " (consumer " + e.Consumer + ", work " + e.Name + ")"
		} else if e.Cluster != "" {
			k = "bundle of cluster " + e.Cluster + " (consumer " + e.Consumer + ", work " + e.Name + ")"
		}
		works[k] = append(works[k], e)
	}
	for k, es := range works {
		sort.SliceStable(es, func(i, j int) bool { return es[i].At.Before(es[j].At) })
		var tr backTrack
		for _, e := range es {
			g, err := strconv.Atoi(e.Generation)
			if err != nil {
				continue
			}
			how := "updated to"
			if e.Kind == "add" {
				how = "created again at"
			}
			tr.see(g, e.At, how)
		}
		if tr.n > 0 {
			bundles = append(bundles, k+": "+tr.String())
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
		var tr backTrack
		for _, o := range objs {
			if g, err := strconv.Atoi(o.Generation); err == nil {
				tr.see(g, o.At, "created again at")
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

// backTrack follows one status's or bundle's generations in time order:
// the newest generation seen and when, and the first move back from it.
type backTrack struct {
	max       int
	maxAt     time.Time
	n         int // moves back
	how       string
	gen, was  int
	at, wasAt time.Time
}

// see is generation g applied or reported at at; how says what a move
// back did ("updated to", "created again at"; "" for a status).
func (t *backTrack) see(g int, at time.Time, how string) {
	switch {
	case t.maxAt.IsZero() || g > t.max:
		t.max, t.maxAt = g, at
	case g < t.max:
		if t.n == 0 {
			t.how, t.gen, t.at, t.was, t.wasAt = how, g, at, t.max, t.maxAt
		}
		t.n++
	}
}

func (t *backTrack) String() string {
	s := fmt.Sprintf("generation %d at %s after generation %d at %s", t.gen, stampMS(t.at), t.was, stampMS(t.wasAt))
	if t.how != "" {
		s = t.how + " " + s
	}
	if t.n > 1 {
		s += fmt.Sprintf(" (moved back %d times)", t.n)
	}
	return s
}

func stampMS(t time.Time) string { return t.UTC().Format("15:04:05.000") }
