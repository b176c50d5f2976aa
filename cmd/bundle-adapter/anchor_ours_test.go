package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/internal/boundedfile"
)

// ourFields runs bundle-adapter's dry-run in process (the code of serve
// --dry-run-*, plus the state files it can write) on the inputs of one
// situation and flattens its answer as anchorAnswer.fields does: the status
// reports it sent, each resource's operation and each object as the run left
// it (the Maestro state's ManifestWork, or the in-memory API server's object,
// named as the outcome names it). A run that fails gives the one field
// run.error: its exit code and last line of stderr (the error; warnings come
// before it).
func ourFields(t *testing.T, s anchorSituation) fields {
	t.Helper()
	tmp := t.TempDir()
	mstate, kstate := filepath.Join(tmp, "maestro.json"), filepath.Join(tmp, "kube.json")
	args := []string{"dry-run", "-c", filepath.Join(s.fixtureDir, "adapter-config.yaml"), "-t", filepath.Join(s.fixtureDir, "task-config.yaml"),
		"--event", filepath.Join(s.dir, "event.json"), "--output", "json",
		"--maestro-state-out", mstate, "--kube-state-out", kstate}
	if p := fileIfExists(filepath.Join(s.dir, "api-responses.json")); p != "" {
		args = append(args, "--api-responses", p)
	}
	if p := fileIfExists(filepath.Join(s.dir, "discovery.json")); p != "" {
		args = append(args, "--discovery", ourDiscovery(t, s, p, tmp))
	}
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		return fields{"run.error": fmt.Sprintf("exit %d: %s", code, lines[len(lines)-1])}
	}
	var rep struct {
		ExecutionStatus string `json:"executionStatus"`
		Bundles         []struct {
			Name, Consumer, WorkName, Operation string
		} `json:"bundles"`
		APICalls []struct {
			Method, Path string
			Body         any
		} `json:"apiCalls"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%s/%s: our report: %v\n%s", s.fixture, s.name, err, out)
	}
	objs := ourObjects(t, mstate, kstate)
	f := fields{"execution.status": rep.ExecutionStatus}
	i := 0
	for _, c := range rep.APICalls {
		if c.Method == "GET" {
			continue
		}
		p := fmt.Sprintf("requests[%d]", i)
		i++
		f[p+".method"] = c.Method
		f[p+".path"] = urlPath(c.Path)
		flatten(f, p+".body", c.Body)
	}
	for _, b := range rep.Bundles {
		if b.Operation == "" {
			continue // not run (preconditions not met): the anchor lists none
		}
		p := "resources." + b.Name
		f[p+".operation"] = b.Operation
		if o := objs[b.WorkName]; o != nil {
			flatten(f, p+".object", o)
		}
	}
	return f
}

// ourDiscovery is the situation's discovery file as bundle-adapter gets it:
// with a "consumer" file, each ManifestWork without a namespace has that
// consumer's, as Maestro reports it (the anchor's dry-run finds a
// ManifestWork only without one: it keys it by the applied manifest's empty
// namespace). Without, the file as it is.
func ourDiscovery(t *testing.T, s anchorSituation, path, tmp string) string {
	t.Helper()
	c, err := boundedfile.Read(filepath.Join(s.dir, "consumer"), 1<<10)
	if err != nil {
		return path
	}
	consumer := strings.TrimSpace(string(c))
	b, err := boundedfile.Read(path, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	var objs map[string]map[string]any
	if err := json.Unmarshal(b, &objs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, o := range objs {
		meta, _ := o["metadata"].(map[string]any)
		if _, ok := meta["namespace"]; meta != nil && !ok && o["kind"] == "ManifestWork" {
			meta["namespace"] = consumer
		}
	}
	if b, err = json.Marshal(objs); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "discovery.json")
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// ourObjects reads the objects a run left, by name and by namespace/name
// (an outcome's workName: a work's name, a kubernetes object's
// [namespace/]name): the Maestro state's works and the in-memory API
// server's objects.
func ourObjects(t *testing.T, mstate, kstate string) map[string]map[string]any {
	t.Helper()
	byName := map[string]map[string]any{}
	for _, p := range []struct{ path, list string }{{mstate, "works"}, {kstate, "objects"}} {
		b, err := boundedfile.Read(p.path, 64<<20)
		if err != nil {
			continue // not written: no resource of that transport
		}
		var st map[string]json.RawMessage
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatalf("%s: %v", p.path, err)
		}
		var list []map[string]any
		if raw, ok := st[p.list]; ok {
			if err := json.Unmarshal(raw, &list); err != nil {
				t.Fatalf("%s: %s: %v", p.path, p.list, err)
			}
		}
		for _, o := range list {
			m, _ := o["metadata"].(map[string]any)
			n, _ := m["name"].(string)
			byName[n] = o
			if ns, ok := m["namespace"].(string); ok && ns != "" {
				byName[ns+"/"+n] = o
			}
		}
	}
	return byName
}
