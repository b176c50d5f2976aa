package check

import (
	"fmt"
	"slices"
)

// kubeDuplicates: an object the kube-apiserver got twice, two uids of one
// kind, namespace, name and generation. A Job is created again only for a
// new generation (the recreate rule); a Namespace never (a deleted
// cluster comes back under a new id).
func kubeDuplicates(h *History) []string {
	uids := map[string]map[string]bool{}
	for _, o := range h.Kube {
		if o.Event != "added" && o.Event != "final" {
			continue
		}
		k := fmt.Sprintf("%s %s/%s", o.Kind, o.Namespace, o.Name)
		if o.Generation != "" {
			k += " at generation " + o.Generation
		}
		if uids[k] == nil {
			uids[k] = map[string]bool{}
		}
		uids[k][o.UID] = true
	}
	var found []string
	for k, u := range uids {
		if len(u) > 1 {
			found = append(found, fmt.Sprintf("kube-apiserver got %d objects %s", len(u), k))
		}
	}
	return found
}

// kubeNotConverged: each real agent's cluster whose objects on the
// kube-apiserver at the end are not those of its last published event,
// with why (every one of them when the objects were not listed at the end).
func kubeNotConverged(h *History, last map[string]Published) map[string]string {
	m := h.Meta
	held := map[string][]KubeObject{}
	for _, o := range h.Kube {
		if o.Event == "final" {
			held[o.Cluster] = append(held[o.Cluster], o)
		}
	}
	bad := map[string]string{}
	for _, id := range m.KubeClusters {
		p, ok := last[id]
		switch {
		case !ok: // never published: nothing was asked of it
		case m.KubeListedAt.IsZero():
			bad[id] = "not listed at the end"
		default:
			if why := kubeState(m, p, held[id]); why != "" {
				bad[id] = why
			}
		}
	}
	return bad
}

func kubeState(m Meta, p Published, held []KubeObject) string {
	if p.Deleted {
		if len(held) > 0 {
			return fmt.Sprintf("%s %s still there after the deletion", held[0].Kind, held[0].Name)
		}
		return ""
	}
	for _, kind := range m.KubeKinds {
		i := slices.IndexFunc(held, func(o KubeObject) bool { return o.Kind == kind })
		switch {
		case i < 0:
			return kind + " missing"
		case held[i].Terminating:
			return kind + " " + held[i].Name + " still terminating"
		case kind == m.KubeGenerationKind && held[i].Generation != fmt.Sprint(p.Generation):
			return fmt.Sprintf("%s %s at generation %s, published %d", kind, held[i].Name, held[i].Generation, p.Generation)
		}
	}
	return ""
}
