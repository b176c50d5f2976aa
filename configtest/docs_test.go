package configtest

import (
	"os"
	"strings"
	"testing"
)

// The first example of docs/testing-configs.md passes against the onprem
// example it is written for, and the failure the page shows is the one the
// command prints when its last step expects a create.
func TestDocsExampleRuns(t *testing.T) {
	page, err := os.ReadFile("../docs/testing-configs.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	start := strings.Index(s, "```yaml\nadapter_config")
	if start < 0 {
		t.Fatal("docs/testing-configs.md: no example starting with adapter_config")
	}
	example := s[start+len("```yaml\n"):]
	example = example[:strings.Index(example, "```")]
	for _, f := range []string{"adapter-config.yaml", "task-config.yaml", "dryrun/event.json"} {
		example = strings.Replace(example, ": "+f, ": ONPREM/"+f, 1)
	}
	path := writeTest(t, "task-config_test.yaml", example)
	if code, out, errOut := runTests(t, Options{}, path); code != ExitPass || !strings.Contains(out, "2 passed, 0 failed") {
		t.Fatalf("the page's example: exit %d\n%s%s", code, out, errOut)
	}

	broken := strings.Replace(example, "validationJob: {operation: recreate, state: done", "validationJob: {operation: create, state: done", 1)
	path = writeTest(t, "task-config_test.yaml", broken)
	code, out, _ := runTests(t, Options{}, path)
	shown := s[strings.Index(s, "  FAIL    a new generation"):]
	shown = shown[:strings.Index(shown, "```")]
	shown = strings.ReplaceAll(shown, "config/examples/onprem/task-config_test.yaml", path)
	if code != ExitFail || !strings.Contains(out, shown) {
		t.Errorf("the page shows\n%s\nthe command prints\n%s", shown, out)
	}
}
