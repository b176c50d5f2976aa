//go:build linux

package kubeclient

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileKubeconfig writes a kubeconfig into dir whose cluster and user
// name the given files (empty: not named), and returns its path.
func hostileKubeconfig(t *testing.T, dir, ca, cert, key, token string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://h.example:6443\n")
	if ca != "" {
		b.WriteString("    certificate-authority: " + ca + "\n")
	}
	b.WriteString("users:\n- name: u\n  user:\n")
	for k, v := range map[string]string{"client-certificate": cert, "client-key": key, "tokenFile": token} {
		if v != "" {
			b.WriteString("    " + k + ": " + v + "\n")
		}
	}
	if cert == "" && key == "" && token == "" {
		b.WriteString("    token: inline\n")
	}
	b.WriteString("contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n")
	p := filepath.Join(dir, "hostile.kubeconfig")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The kubeconfig and every file it names are read through the bounded
// reader: a device, a FIFO, a blocking or huge file, a symlink loop or a
// missing file fails at once with an error naming the file (and the
// kubeconfig key that named it), never hangs or reads without end
// (issue 28 #3: /dev/zero took serve to 23 GB, a FIFO hung start-up).
func TestKubeconfigFilesAreBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs: %v", err)
	}
	huge := filepath.Join(dir, "huge")
	if err := os.WriteFile(huge, make([]byte, 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop")
	os.Symlink(loop+"2", loop)
	os.Symlink(loop, loop+"2")
	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, []byte("{{{ not yaml"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	good := "testdata/kubeconfig/"
	kmsg := "/proc/kmsg"
	type tc struct {
		name       string
		kubeconfig func() string
		want       []string
	}
	named := func(ca, cert, key, token string) func() string {
		return func() string { return hostileKubeconfig(t, t.TempDir(), ca, cert, key, token) }
	}
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	path := func(p string) func() string { return func() string { return p } }
	cases := []tc{
		{"kubeconfig /dev/zero", path("/dev/zero"), []string{"kubeconfig /dev/zero", "not a regular file"}},
		{"kubeconfig FIFO", path(fifo), []string{fifo, "named pipe"}},
		{"kubeconfig directory", path(dir), []string{dir, "directory"}},
		{"kubeconfig missing", path(filepath.Join(dir, "none")), []string{"none", "no such file"}},
		{"kubeconfig huge", path(huge), []string{huge, "larger than the limit"}},
		{"kubeconfig symlink loop", path(loop), []string{loop, "too many levels of symbolic links"}},
		{"kubeconfig not yaml", path(garbage), []string{garbage}},
		{"kubeconfig empty", path(empty), []string{empty}},
		{"kubeconfig /proc/kmsg", path(kmsg), []string{kmsg}},
		{"CA /dev/zero", named("/dev/zero", "", "", ""), []string{"certificate-authority /dev/zero", "not a regular file"}},
		{"CA FIFO", named(fifo, "", "", ""), []string{"certificate-authority " + fifo, "named pipe"}},
		{"CA huge", named(huge, "", "", ""), []string{"certificate-authority " + huge, "larger than the limit"}},
		{"CA /proc/kmsg", named(kmsg, "", "", ""), []string{"certificate-authority " + kmsg}},
		{"CA missing", named(filepath.Join(dir, "none"), "", "", ""), []string{"certificate-authority", "no such file"}},
		{"client cert FIFO", named("", fifo, abs(good+"client.key"), ""), []string{"client-certificate " + fifo, "named pipe"}},
		{"client cert symlink loop", named("", loop, abs(good+"client.key"), ""), []string{"client-certificate " + loop}},
		{"client key /dev/zero", named("", abs(good+"client.crt"), "/dev/zero", ""), []string{"client-key /dev/zero", "not a regular file"}},
		{"client key huge", named("", abs(good+"client.crt"), huge, ""), []string{"client-key " + huge, "larger than the limit"}},
		{"token file /dev/zero", named("", "", "", "/dev/zero"), []string{"tokenFile /dev/zero", "not a regular file"}},
		{"token file FIFO", named("", "", "", fifo), []string{"tokenFile " + fifo, "named pipe"}},
		{"token file huge", named("", "", "", huge), []string{"tokenFile " + huge, "larger than the limit"}},
		{"token file /proc/kmsg", named("", "", "", kmsg), []string{"tokenFile " + kmsg}},
		{"token file empty", named("", "", "", empty), []string{"tokenFile " + empty, "empty"}},
	}
	if err := os.WriteFile(filepath.Join(t.TempDir(), "probe"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if strings.Contains(c.name, "kmsg") {
				if _, err := os.Stat(kmsg); err != nil {
					t.Skip("no /proc/kmsg")
				}
			}
			kc := c.kubeconfig()
			done := make(chan error, 1)
			go func() { _, err := Options{Kubeconfig: kc}.withDefaults().restConfig(); done <- err }()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("restConfig succeeded")
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
			case <-time.After(10 * time.Second):
				t.Fatal("restConfig still running after 10s")
			}
		})
	}
}

// Files named by a kubeconfig are read relative to its directory (as
// kubectl does) and handed to client-go as bytes: the rest.Config names no
// file, so client-go never reads a path. A tokenFile is read again when it
// changes (rotation, as client-go's own token file source).
func TestKubeconfigFilesInlined(t *testing.T) {
	cfg, err := Options{Kubeconfig: "testdata/kubeconfig/files.kubeconfig"}.withDefaults().restConfig()
	if err != nil {
		t.Fatal(err)
	}
	tls := cfg.TLSClientConfig
	if tls.CAFile != "" || tls.CertFile != "" || tls.KeyFile != "" || cfg.BearerTokenFile != "" {
		t.Errorf("rest.Config names files: CA %q cert %q key %q token %q", tls.CAFile, tls.CertFile, tls.KeyFile, cfg.BearerTokenFile)
	}
	if len(tls.CAData) == 0 || len(tls.CertData) == 0 || len(tls.KeyData) == 0 {
		t.Errorf("CA %d, cert %d, key %d bytes: want all read", len(tls.CAData), len(tls.CertData), len(tls.KeyData))
	}

	dir := t.TempDir()
	kc := hostileKubeconfig(t, dir, "", "", "", "token")
	tokenPath := filepath.Join(dir, "token")
	os.WriteFile(tokenPath, []byte("first\n"), 0o600)
	cfg, err = Options{Kubeconfig: kc}.withDefaults().restConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BearerTokenFile != "" || cfg.BearerToken != "" {
		t.Errorf("token file %q, token set %v: want neither (the transport adds it)", cfg.BearerTokenFile, cfg.BearerToken != "")
	}
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	rt := cfg.WrapTransport(http.DefaultTransport)
	send := func() {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	send()
	os.WriteFile(tokenPath, []byte("second-rotated\n"), 0o600)
	future := time.Now().Add(time.Hour)
	os.Chtimes(tokenPath, future, future)
	send() // within a minute: the token read a moment ago
	clock = func() time.Time { return time.Now().Add(2 * tokenRecheck) }
	defer func() { clock = time.Now }()
	send()
	// Swapped for something hostile mid-rotation: never read unbounded,
	// the last token stays in use.
	os.Remove(tokenPath)
	os.Symlink("/dev/zero", tokenPath)
	clock = func() time.Time { return time.Now().Add(4 * tokenRecheck) }
	send()
	if len(got) != 4 || got[0] != "Bearer first" || got[1] != "Bearer first" || got[2] != "Bearer second-rotated" || got[3] != "Bearer second-rotated" {
		t.Errorf("Authorization headers %q, want the token twice, then the rotated one twice", got)
	}
}
