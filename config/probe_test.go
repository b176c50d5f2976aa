package config

import (
	"errors"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"path/filepath"
	"strings"
	"testing"
)

// validate proves at load what used to fail (or slip through) on every
// event: a ref file that is not YAML once rendered, a kind hidden behind a
// template comment, a template naming something that does not exist, a
// template that can never finish (issue 14, items 7 and 11). Each problem
// names the file or YAML path and what is wrong.
func TestLoadRendersTemplatesWithSampleValues(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"task-not-yaml.yaml", []string{"not-yaml.yaml", "not valid YAML"}},
		{"task-hidden-kind.yaml", []string{"hidden-kind.yaml", `must be ManifestWork`, `"Deployment"`}},
		{"task-inline-hidden-kind.yaml", []string{"resources[0].manifest.kind", `must be ManifestWork`, `"Deployment"`}},
		{"task-unknown-name.yaml", []string{
			`resources[0].transport.maestro.target_cluster: template uses .clusterID, which is not a param`, `did you mean "clusterId"`,
			`resources[0].manifest.metadata.name: template uses .nosuchParam`,
			`post.payloads[0].build.range: template uses $.typo2`}},
		{"task-endless.yaml", []string{"resources[0].manifest.metadata.name", "step budget"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := LoadTaskConfig(filepath.Join("testdata", "probe", tt.file))
			var es configfile.Errors
			if !errors.As(err, &es) {
				t.Fatalf("LoadTaskConfig = %v, want config.Errors", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

// Templates that are fine load fine: sample values never make a valid
// config fail.
func TestLoadAcceptsGoodTemplates(t *testing.T) {
	if _, err := LoadTaskConfig(filepath.Join("testdata", "probe", "task-good.yaml")); err != nil {
		t.Fatal(err)
	}
}
