package shadow

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Decision is what this adapter would have done to one resource, or to the
// status it reports, and whether that agrees with what is live.
type Decision struct {
	// Resource names the resource (its name in the task config, or the
	// bundle or object name), "status" for the status report, or the
	// method and URL of another API write.
	Resource string `json:"resource"`
	// Operation is the outcome's operation (create, update, unchanged,
	// recreate, delete, skip), "status", "api" for another API write, or
	// the verb of a write no outcome names.
	Operation string `json:"operation"`
	Reason    string `json:"reason,omitempty"`
	Agrees    bool   `json:"agrees"`
	// Differences name what differs: "path: desired X, live Y".
	Differences []string `json:"differences,omitempty"`
}

// resourceDecisions judges every outcome of res against the writes the
// event would have made. A resource agrees when its outcome is not failed
// and this adapter would write nothing to it: unchanged, adopted, skipped,
// or a deletion the live adapter already started. A write no outcome
// names is a disagreement of its own.
func resourceDecisions(res *adapter.Result, writes []Write) []Decision {
	used := make([]bool, len(writes))
	var out []Decision
	for _, o := range res.Bundles {
		if o.Operation == "" {
			continue
		}
		d := Decision{Resource: o.Name, Operation: string(o.Operation), Reason: o.Reason, Agrees: o.State != adapter.StateFailed}
		if o.State == adapter.StateFailed {
			d.Differences = append(d.Differences, "error: "+o.Error)
		}
		for i, w := range writes {
			if w.Boundary != "api" && writesTo(w, o) {
				used[i] = true
				d.Agrees = false
				d.Differences = append(d.Differences, describeWrite(w)...)
			}
		}
		out = append(out, d)
	}
	for i, w := range writes {
		if !used[i] && w.Boundary != "api" {
			out = append(out, Decision{Resource: objectKey(w), Operation: w.Verb, Differences: describeWrite(w)})
		}
	}
	return out
}

// writesTo reports whether w is a write to the resource of outcome o.
func writesTo(w Write, o adapter.Outcome) bool {
	if w.Boundary == "maestro" {
		return o.Consumer != "" && w.Consumer == o.Consumer && w.Name == o.WorkName
	}
	return o.Consumer == "" && (objectKey(w) == o.WorkName || w.Name == o.WorkName)
}

func objectKey(w Write) string {
	switch {
	case w.Consumer != "":
		return w.Consumer + "/" + w.Name
	case w.Namespace != "":
		return w.Namespace + "/" + w.Name
	}
	return w.Name
}

func describeWrite(w Write) []string {
	if len(w.Diff) == 0 {
		return []string{"would " + w.Verb + " " + objectKey(w)}
	}
	out := make([]string, 0, len(w.Diff))
	for _, d := range w.Diff {
		out = append(out, "would "+w.Verb+" "+objectKey(w)+": "+d)
	}
	return out
}

// isStatusWrite reports whether an API write reports status: its URL's
// path ends in /statuses (HyperFleet's status endpoint).
func isStatusWrite(w Write) bool {
	u, err := url.Parse(w.URL)
	if err != nil {
		return false
	}
	return strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/statuses")
}

// condition is a status condition as compared: type, status and reason.
// Messages are not compared (see docs/migration.md).
type condition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

type adapterStatus struct {
	Adapter    string      `json:"adapter"`
	Conditions []condition `json:"conditions"`
}

// liveStatus picks, from the body of GET …/statuses, the entry whose
// adapter is name. The body is HyperFleet's list ({"items": [...]}) or a
// bare array. ok is false when no entry names the adapter.
func liveStatus(body []byte, name string) (adapterStatus, bool, error) {
	var list struct {
		Items []adapterStatus `json:"items"`
	}
	var items []adapterStatus
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "[") {
		if err := json.Unmarshal(body, &items); err != nil {
			return adapterStatus{}, false, fmt.Errorf("statuses list: %w", err)
		}
	} else {
		if err := json.Unmarshal(body, &list); err != nil {
			return adapterStatus{}, false, fmt.Errorf("statuses list: %w", err)
		}
		items = list.Items
	}
	for _, s := range items {
		if s.Adapter == name {
			return s, true, nil
		}
	}
	return adapterStatus{}, false, nil
}

// conditionDiff names the conditions whose status or reason differ
// between the status this adapter would report and the live one, and the
// conditions only one of them holds.
func conditionDiff(want, live []condition) []string {
	byType := map[string]condition{}
	for _, c := range live {
		byType[c.Type] = c
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range want {
		seen[w.Type] = true
		l, ok := byType[w.Type]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("conditions[%s]: desired %s/%s, live absent", w.Type, w.Status, w.Reason))
		case l.Status != w.Status || l.Reason != w.Reason:
			out = append(out, fmt.Sprintf("conditions[%s]: desired %s/%s, live %s/%s", w.Type, w.Status, w.Reason, l.Status, l.Reason))
		}
	}
	for _, l := range live {
		if !seen[l.Type] {
			out = append(out, fmt.Sprintf("conditions[%s]: desired absent, live %s/%s", l.Type, l.Status, l.Reason))
		}
	}
	sort.Strings(out)
	return out
}
