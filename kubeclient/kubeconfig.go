package kubeclient

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/bundle-adapter/bundle-adapter/internal/boundedfile"
)

// MaxKubeconfigFileBytes bounds the kubeconfig and each file it names
// (certificate-authority, client-certificate, client-key, tokenFile), and
// the in-cluster token and CA: a path to a device, a FIFO or a file that
// grows fails instead of being read without end.
const MaxKubeconfigFileBytes = 1 << 20

// tokenRecheck is how long a token read from a file is used before the
// file is looked at again: client-go's own token file source re-reads
// every minute, so a rotated service account token is picked up as before.
const tokenRecheck = time.Minute

// clock is time.Now; tests move it.
var clock = time.Now

// In-cluster paths, as rest.InClusterConfig reads them.
const (
	inClusterTokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	inClusterCAFile    = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"
)

// loadKubeconfig reads the kubeconfig at path and every file its chosen
// context names through the bounded reader, and builds the rest.Config
// from bytes only: the config handed to client-go names no file, so
// client-go never reads a path (its loader reads with an unbounded
// os.ReadFile). Relative paths are resolved against the kubeconfig's
// directory, as kubectl does. A tokenFile is not inlined: the transport
// reads it (bounded) and reads it again when it changes (rotation). Errors
// name the kubeconfig and, for a named file, its key and path.
func loadKubeconfig(path, context string) (*rest.Config, error) {
	data, err := boundedfile.Read(path, MaxKubeconfigFileBytes)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	raw, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if len(raw.Contexts) == 0 && len(raw.Clusters) == 0 {
		return nil, fmt.Errorf("kubeconfig %s: no clusters and no contexts", path)
	}
	dir := filepath.Dir(path)
	if context == "" {
		context = raw.CurrentContext
	}
	var token *tokenFile
	if ctx := raw.Contexts[context]; ctx != nil {
		if c := raw.Clusters[ctx.Cluster]; c != nil {
			if err := inlineCluster(c, dir); err != nil {
				return nil, fmt.Errorf("kubeconfig %s: cluster %q: %w", path, ctx.Cluster, err)
			}
		}
		if u := raw.AuthInfos[ctx.AuthInfo]; u != nil {
			if token, err = inlineUser(u, dir); err != nil {
				return nil, fmt.Errorf("kubeconfig %s: user %q: %w", path, ctx.AuthInfo, err)
			}
		}
	}
	forgetPaths(raw)
	overrides := &clientcmd.ConfigOverrides{CurrentContext: context}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, context, overrides, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	if token != nil {
		cfg.Wrap(token.wrap)
	}
	return cfg, nil
}

// inlineCluster replaces the cluster's certificate-authority path by the
// bytes it names (certificate-authority-data, when given, wins, as in
// client-go).
func inlineCluster(c *clientcmdapi.Cluster, dir string) error {
	if c.CertificateAuthority == "" || len(c.CertificateAuthorityData) > 0 {
		return nil
	}
	b, err := readNamed("certificate-authority", c.CertificateAuthority, dir)
	if err != nil {
		return err
	}
	c.CertificateAuthorityData = b
	return nil
}

// inlineUser replaces the user's client-certificate and client-key paths by
// their bytes, and returns a token file source for tokenFile (unless an
// inline token wins, as in client-go). Both a path and data for the same
// item is refused, as client-go refuses it.
func inlineUser(u *clientcmdapi.AuthInfo, dir string) (*tokenFile, error) {
	for _, f := range []struct {
		key  string
		path *string
		data *[]byte
	}{
		{"client-certificate", &u.ClientCertificate, &u.ClientCertificateData},
		{"client-key", &u.ClientKey, &u.ClientKeyData},
	} {
		if *f.path == "" {
			continue
		}
		if len(*f.data) > 0 {
			return nil, fmt.Errorf("%s and %s-data are both given", f.key, f.key)
		}
		b, err := readNamed(f.key, *f.path, dir)
		if err != nil {
			return nil, err
		}
		*f.data = b
	}
	if u.TokenFile == "" || u.Token != "" {
		return nil, nil
	}
	t := &tokenFile{key: "tokenFile", path: resolve(u.TokenFile, dir)}
	if _, err := t.read(time.Now()); err != nil {
		return nil, err
	}
	return t, nil
}

// forgetPaths clears every file path of raw (the chosen context's are
// inlined by now; the others are not used), so nothing client-go does with
// raw reads a file.
func forgetPaths(raw *clientcmdapi.Config) {
	for _, c := range raw.Clusters {
		c.CertificateAuthority = ""
	}
	for _, u := range raw.AuthInfos {
		u.ClientCertificate, u.ClientKey, u.TokenFile = "", "", ""
	}
}

func resolve(p, dir string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// readNamed reads the file a kubeconfig key names, bounded; the error names
// the key and the path.
func readNamed(key, p, dir string) ([]byte, error) {
	p = resolve(p, dir)
	b, err := boundedfile.Read(p, MaxKubeconfigFileBytes)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", key, p, err)
	}
	return b, nil
}

// tokenFile is a bearer token read from a file through the bounded reader,
// used for tokenRecheck and then read again if the file's modification time
// or size changed. A file that cannot be read again (or reads empty) keeps
// the last token in use, as client-go's token file source does; the first
// read must succeed. The token never appears in errors.
type tokenFile struct {
	key, path string

	mu      sync.Mutex
	token   string
	mtime   time.Time
	size    int64
	checked time.Time
}

func (t *tokenFile) read(now time.Time) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token != "" && now.Sub(t.checked) < tokenRecheck && now.After(t.checked) {
		return t.token, nil
	}
	st, err := os.Stat(t.path)
	if err == nil && t.token != "" && st.ModTime().Equal(t.mtime) && st.Size() == t.size {
		t.checked = now
		return t.token, nil
	}
	b, err := boundedfile.Read(t.path, MaxKubeconfigFileBytes)
	tok := strings.TrimSpace(string(b))
	if err == nil && tok == "" {
		err = fmt.Errorf("is empty")
	}
	if err != nil {
		if t.token != "" {
			// As client-go's token file source: a token that was read
			// stays in use while the file cannot be read (a rotation in
			// progress); the file is looked at again after tokenRecheck.
			t.checked = now
			return t.token, nil
		}
		return "", fmt.Errorf("%s %s: %w", t.key, t.path, err)
	}
	t.token, t.checked = tok, now
	if st != nil {
		t.mtime, t.size = st.ModTime(), st.Size()
	}
	return tok, nil
}

// wrap adds the token to every request that carries no Authorization
// header. A token that can no longer be read fails the request; the last
// good token is not used past its file's change.
func (t *tokenFile) wrap(rt http.RoundTripper) http.RoundTripper {
	return &tokenTransport{rt: rt, t: t}
}

type tokenTransport struct {
	rt http.RoundTripper
	t  *tokenFile
}

func (tt *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return tt.rt.RoundTrip(req)
	}
	tok, err := tt.t.read(clock())
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+tok)
	return tt.rt.RoundTrip(req)
}

// WrappedRoundTripper lets client-go reach the transport underneath.
func (tt *tokenTransport) WrappedRoundTripper() http.RoundTripper { return tt.rt }

// inClusterConfig is rest.InClusterConfig with the service account's CA
// and token read through the bounded reader (the token read again when it
// rotates, as client-go does).
func inClusterConfig() (*rest.Config, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, rest.ErrNotInCluster
	}
	t := &tokenFile{key: "service account token", path: inClusterTokenFile}
	if _, err := t.read(time.Now()); err != nil {
		return nil, err
	}
	ca, err := readNamed("service account CA", inClusterCAFile, "/")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	cfg := &rest.Config{
		Host:            "https://" + joinHostPort(host, port),
		TLSClientConfig: rest.TLSClientConfig{CAData: ca},
	}
	cfg.Wrap(t.wrap)
	return cfg, nil
}

func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		return "[" + host + "]:" + port
	}
	return host + ":" + port
}
