package shadow

import (
	"fmt"
	"net/url"
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
	// Field is the class of what differs (FieldCondition ... FieldOther
	// for the status, FieldResource for a resource), "" when it agrees.
	Field string `json:"field,omitempty"`
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
			d.Differences = append(d.Differences, "error: "+redactText(o.Error))
		}
		for i, w := range writes {
			if w.Boundary != "api" && writesTo(w, o) {
				used[i] = true
				d.Agrees = false
				d.Differences = append(d.Differences, describeWrite(w)...)
			}
		}
		if !d.Agrees {
			d.Field = FieldResource
		}
		out = append(out, d)
	}
	for i, w := range writes {
		if !used[i] && w.Boundary != "api" {
			out = append(out, Decision{Resource: objectKey(w), Operation: w.Verb, Field: FieldResource, Differences: describeWrite(w)})
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

// liveStatus picks, from the body of GET …/statuses, the entry whose
// adapter is name, whole. The body is HyperFleet's list ({"items": [...]})
// or a bare array. ok is false when no entry names the adapter.
func liveStatus(body []byte, name string) (map[string]any, bool, error) {
	var list struct {
		Items []map[string]any `json:"items"`
	}
	var items []map[string]any
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "[") {
		if err := decodeJSON(body, &items); err != nil {
			return nil, false, fmt.Errorf("statuses list: %w", err)
		}
	} else {
		if err := decodeJSON(body, &list); err != nil {
			return nil, false, fmt.Errorf("statuses list: %w", err)
		}
		items = list.Items
	}
	for _, s := range items {
		if a, _ := s["adapter"].(string); a == name {
			return s, true, nil
		}
	}
	return nil, false, nil
}
