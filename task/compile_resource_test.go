package task

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"strings"
	"testing"
)

func TestDiscoveryNamespaceOnBundleWarns(t *testing.T) {
	l := configfile.NewErrorList("x.yaml")
	r := Resource{Discovery: &Discovery{Namespace: tmpl.Text{Src: "*", Path: "resources[0].discovery.namespace"}, ByName: tmpl.Text{Src: "n"}}}
	r.Transport = Transport{Client: "maestro", Maestro: &MaestroTransport{TargetCluster: tmpl.Text{Src: "c1"}}}
	compileResource(l, nil, refs{dir: "."}, &r, "resources[0]")
	if len(l.Warns) != 1 || !strings.Contains(l.Warns[0].Error(), "resources[0].discovery.namespace: has no effect on a bundle") {
		t.Errorf("want one warning on discovery.namespace, got %v", l.Warns)
	}
}
