package config

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/task"
	"path/filepath"
	"strings"
	"testing"
)

// lifecycle.create and recreate_on_change load in HyperFleet's shape, are
// checked as the rules they map to, and a misspelt lifecycle key is never
// steered into a destructive rule.
func TestLifecycleCreateAndRecreateOnChange(t *testing.T) {
	_, err := LoadTaskConfig(filepath.Join("testdata", "broken", "lifecycle-create.yaml"))
	assertErrors(t, err, []string{
		`lifecycle-create.yaml:11: resources[0].lifecycle.create: requires a discovery block`,
		`lifecycle-create.yaml:17: resources[1].lifecycle.create.when: needs expression or conditions`,
		`lifecycle-create.yaml:19: resources[2].recreate_on_change: set recreate_on_change or lifecycle.recreate, not both`,
		`lifecycle-create.yaml:27: resources[3].recreate_on_change: requires a discovery block`,
		`lifecycle-create.yaml:32: resources[4].recreate_on_change: the bundle contains a Namespace`,
		`lifecycle-create.yaml:41: resources[5].lifecycle.recreat: unknown field "recreat"`,
		`lifecycle-create.yaml:42: resources[5].lifecycle.delet: unknown field "delet"`,
		`lifecycle-create.yaml:43: resources[5].lifecycle.creat: unknown field "creat"; did you mean "create"?`,
	})
	for _, bad := range []string{`did you mean "recreate"`, `did you mean "delete"`} {
		if strings.Contains(err.Error(), bad) {
			t.Errorf("a destructive key was suggested (%s):\n%v", bad, err)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 8 {
		t.Errorf("want exactly 8 problems, got %d:\n%v", n, err)
	}
}

// No key that deletes bundles is ever suggested, whatever the typo.
func TestSuggestNeverProposesDestructiveKeys(t *testing.T) {
	fields := configfile.StructFields(configfile.ReflectValue(&task.Lifecycle{}).Type())
	for _, typo := range []string{"recreat", "recreate_", "delet", "deleted", "Recreate_on_chang", "remove"} {
		for _, k := range configfile.DestructiveKeys {
			if strings.Contains(configfile.Suggest(typo, fields), `"`+k+`"`) {
				t.Errorf("suggest(%q) proposes %q", typo, k)
			}
		}
	}
	if got := configfile.Suggest("creat", fields); got != `; did you mean "create"?` {
		t.Errorf(`suggest("creat") = %q, want "create"`, got)
	}
	resFields := configfile.StructFields(configfile.ReflectValue(&task.Resource{}).Type())
	if got := configfile.Suggest("recreate_on_chang", resFields); strings.Contains(got, "recreate_on_change") {
		t.Errorf("suggest proposes recreate_on_change: %q", got)
	}
}
