package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// Templates cannot read the environment, files, the network or run
// processes, wherever they are in a task config (param and post api_call
// URLs and bodies, target_cluster, discovery, inline and file manifests,
// payloads): loading testdata/broken/template-funcs.yaml fails with one
// problem per template, each naming file, line, YAML path and the
// function.
func TestTemplatesCannotReachEnvOrFiles(t *testing.T) {
	file := filepath.Join("testdata", "broken", "template-funcs.yaml")
	_, err := LoadTaskConfig(file)
	var es configfile.Errors
	if !errors.As(err, &es) {
		t.Fatalf("LoadTaskConfig = %v, want config.Errors", err)
	}
	tests := []struct {
		line int
		path string
		fn   string
	}{
		{7, "params[1].source.api_call.url", "readFile"},
		{10, "resources[0].transport.maestro.target_cluster", "expandenv"},
		{11, "resources[0].discovery.by_name", "getHostByName"},
		{12, "resources[0].manifest", "env"},
		{22, "resources[1].manifest", "env"}, // in bundles/reads-env.yaml
		{23, "resources[1].discovery.by_name", "osEnv"},
		{28, "post.payloads[0].build.secret", "include"},
		{29, "post.payloads[0].build.uid", "exec"},
		{32, "post.post_actions[0].api_call.body", "readFile"},
	}
	if len(es) != len(tests) {
		t.Errorf("%d problems, want %d:\n%v", len(es), len(tests), err)
	}
	for _, tt := range tests {
		want := fmt.Sprintf("%s:%d: %s: ", file, tt.line, tt.path)
		found := false
		for _, e := range es {
			if strings.HasPrefix(e.Error(), want) && strings.Contains(e.Msg, fmt.Sprintf("function %q not defined", tt.fn)) {
				found = true
			}
		}
		if !found {
			t.Errorf("no problem %q ... function %q not defined in:\n%v", want, tt.fn, err)
		}
	}
	if !strings.Contains(err.Error(), "reads-env.yaml") {
		t.Errorf("the problem in the manifest file must name it:\n%v", err)
	}
}
