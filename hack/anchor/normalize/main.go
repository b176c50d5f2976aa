// Command normalize turns hyperfleet-adapter's dry-run trace
// (`serve --dry-run-output json --dry-run-verbose`) into the answer file the
// differential test reads (cmd/bundle-adapter/testdata/anchor/*/situations/*/anchor.json):
// the execution status, each resource's operation, each object as the run
// left it (the trace's discoveredResources of that resource's name), and each request that is not a GET
// with its body decoded. Request bodies the anchor did not send as JSON are
// kept as strings. It reads the trace on stdin and writes the answer on
// stdout; it fails on anything that is not such a trace.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

type trace struct {
	Status string `json:"status"`
	// Discovered are the objects as the run left them, by resource name
	// (the CEL variable resources).
	Discovered map[string]map[string]any `json:"discoveredResources"`
	Errors     map[string]string         `json:"errors"`
	Resources  []struct {
		Name            string         `json:"name"`
		Kind            string         `json:"kind"`
		Namespace       string         `json:"namespace"`
		ResourceName    string         `json:"resourceName"`
		Status          string         `json:"status"`
		Operation       string         `json:"operation"`
		Error           string         `json:"error"`
		DiscoveredState map[string]any `json:"discoveredState"`
	} `json:"resources"`
	APIRequests []struct {
		Method      string `json:"method"`
		URL         string `json:"url"`
		StatusCode  int    `json:"statusCode"`
		RequestBody string `json:"requestBody"`
	} `json:"apiRequests"`
}

// Answer is the anchor.json format.
type Answer struct {
	Anchor    string            `json:"anchor"`
	Status    string            `json:"status"`
	Errors    map[string]string `json:"errors,omitempty"`
	Resources []Resource        `json:"resources"`
	Requests  []Request         `json:"requests"`
}

// Resource is one resource of the task config as the anchor reported it.
type Resource struct {
	Name      string         `json:"name"`
	Kind      string         `json:"kind,omitempty"`
	Namespace string         `json:"namespace,omitempty"`
	Object    string         `json:"objectName,omitempty"`
	Operation string         `json:"operation"`
	Status    string         `json:"status"`
	Error     string         `json:"error,omitempty"`
	State     map[string]any `json:"object,omitempty"`
}

// Request is one API request that is not a GET.
type Request struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	Body   any    `json:"body"`
}

const usage = `usage:
  normalize trace <anchor commit> < trace.json > anchor.json
  normalize discovery < anchor.json > discovery.json`

func main() {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "trace":
		err = run(os.Args[2], os.Stdin, os.Stdout)
	case len(os.Args) == 2 && os.Args[1] == "discovery":
		err = discovery(os.Stdin, os.Stdout)
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "normalize:", err)
		os.Exit(1)
	}
}

// discovery writes the anchor's discovery file (objects by metadata.name)
// of the objects an answer reports: what the run that answer came from left,
// as the anchor left them. A ManifestWork it applied has no namespace, and
// stays so: the anchor's dry-run finds an object by the namespace of the
// applied manifest, so one with its consumer's namespace would not be found.
func discovery(in io.Reader, out io.Writer) error {
	var a Answer
	if err := json.NewDecoder(in).Decode(&a); err != nil {
		return fmt.Errorf("the answer: %w", err)
	}
	objs := map[string]map[string]any{}
	for _, r := range a.Resources {
		if r.State == nil {
			continue
		}
		meta, _ := r.State["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		if name == "" {
			return fmt.Errorf("resource %s: the object has no metadata.name", r.Name)
		}
		objs[name] = r.State
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(objs)
}

func run(commit string, in io.Reader, out io.Writer) error {
	var t trace
	dec := json.NewDecoder(in)
	if err := dec.Decode(&t); err != nil {
		return fmt.Errorf("the anchor's trace: %w", err)
	}
	if t.Status == "" {
		return fmt.Errorf("the anchor's trace has no status: not a dry-run trace")
	}
	a := Answer{Anchor: commit, Status: t.Status, Errors: t.Errors, Resources: []Resource{}, Requests: []Request{}}
	for _, r := range t.Resources {
		if o, ok := t.Discovered[r.Name]; ok {
			r.DiscoveredState = o
		}
		a.Resources = append(a.Resources, Resource{Name: r.Name, Kind: r.Kind, Namespace: r.Namespace, Object: r.ResourceName,
			Operation: r.Operation, Status: r.Status, Error: r.Error, State: r.DiscoveredState})
	}
	for _, r := range t.APIRequests {
		if r.Method == "GET" {
			continue
		}
		var body any = r.RequestBody
		var v any
		if err := json.Unmarshal([]byte(r.RequestBody), &v); err == nil {
			body = v
		}
		a.Requests = append(a.Requests, Request{Method: r.Method, URL: r.URL, Body: body})
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(a)
}
