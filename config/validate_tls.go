package config

import (
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/boundedfile"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// validateTransport refuses Maestro transport settings that cannot work
// together: TLS auth with a plaintext REST address, TLS auth with
// insecure: true, and TLS files that are missing or not regular files.
// Files are checked when they will be read: with auth.type tls, or for the
// REST CA when the REST address is https://. Relative paths are relative to
// the adapter's working directory, as at run time.
func (m *MaestroConfig) validateTransport(l *configfile.ErrorList, path string) {
	tlsAuth := m.Auth.Type == "tls"
	restTLS := strings.HasPrefix(m.HTTPServerAddress.Reveal(), "https://")
	if tlsAuth && strings.HasPrefix(m.HTTPServerAddress.Reveal(), "http://") {
		l.Add(path+".http_server_address", "is plaintext (http://) but auth.type is tls: use an https:// URL")
	}
	if tlsAuth && m.Insecure {
		l.Add(path+".insecure", "must not be true when auth.type is tls (insecure means no TLS)")
	}
	files := path + ".auth.tls_config"
	t := m.Auth.TLSConfig
	if tlsAuth {
		checkTLSFile(l, files+".ca_file", t.CAFile)
		checkTLSFile(l, files+".cert_file", t.CertFile)
		checkTLSFile(l, files+".key_file", t.KeyFile)
	} else if restTLS && t.HTTPCAFile == "" {
		checkTLSFile(l, files+".ca_file", t.CAFile)
	}
	if tlsAuth || restTLS {
		checkTLSFile(l, files+".http_ca_file", t.HTTPCAFile)
	}
}

// checkTLSFile reports a set path that is not a regular file of at most
// MaxFileBytes.
func checkTLSFile(l *configfile.ErrorList, path, file string) {
	if file == "" {
		return
	}
	if err := boundedfile.Check(file, configfile.MaxFileBytes); err != nil {
		l.Add(path, "cannot read %q: %v", file, err)
	}
}
