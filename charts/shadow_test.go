package charts

import (
	"strings"
	"testing"
)

// TestShadowValueAddsTheFlag: shadow: true runs serve --shadow; the
// default runs serve as it is.
func TestShadowValueAddsTheFlag(t *testing.T) {
	helm := helmOrSkip(t)
	for _, tt := range []struct {
		set  []string
		want bool
	}{{nil, false}, {[]string{"--set", "shadow=true"}, true}, {[]string{"--set", "shadow=false"}, false}} {
		out, err := Template(helm, "..", "shadow", "bundle-adapter", Case{Name: "defaults"}, tt.set...)
		if err != nil {
			t.Fatalf("helm template %v: %v\n%s", tt.set, err, out)
		}
		objs, err := Split(out)
		if err != nil {
			t.Fatal(err)
		}
		_, dep := configMapsAndDeployment(objs)
		if dep == nil {
			t.Fatalf("%v: no Deployment rendered", tt.set)
		}
		pod, err := podOf(dep)
		if err != nil {
			t.Fatal(err)
		}
		args := pod.Containers[0].Args
		got := strings.Join(args, " ")
		if has := strings.Contains(got, "--shadow"); has != tt.want {
			t.Errorf("%v: args %q, want --shadow %v", tt.set, args, tt.want)
		}
		if !strings.HasPrefix(got, "serve ") {
			t.Errorf("%v: args %q, want serve first", tt.set, args)
		}
	}
}
