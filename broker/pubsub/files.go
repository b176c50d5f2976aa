package pubsub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/boundedfile"
	"google.golang.org/api/option"
)

// Variables through which the Google client libraries read files on their
// own (unbounded, and a FIFO hangs them). Options.ReadFiles reads the
// credentials once through boundedfile and hands them to the client as
// bytes; what it cannot hand over as bytes is refused, naming the variable.
const (
	// EnvCredentials names the credentials file (read here, handed over
	// as bytes).
	EnvCredentials = "GOOGLE_APPLICATION_CREDENTIALS"
	// EnvHome and EnvAppData locate gcloud's well-known credentials file
	// (read here when it exists) and its client-certificate configs
	// (refused unless EnvUseClientCertificate is false).
	EnvHome    = "HOME"
	EnvAppData = "APPDATA"
	// EnvUseClientCertificate on (or unset: the library's default for
	// googleapis.com) makes the library read certificate config files and
	// the files they name.
	EnvUseClientCertificate = "GOOGLE_API_USE_CLIENT_CERTIFICATE"
	// EnvCertificateConfig names a certificate config file.
	EnvCertificateConfig = "GOOGLE_API_CERTIFICATE_CONFIG"
	// EnvUseS2A on makes the library read the metadata server's mTLS files.
	EnvUseS2A = "EXPERIMENTAL_GOOGLE_API_USE_S2A"
)

// FileEnv lists the variables above: every one through which the Google
// libraries read a file. The class test checks it against their source.
var FileEnv = []string{EnvCredentials, EnvHome, EnvAppData, EnvUseClientCertificate, EnvCertificateConfig, EnvUseS2A}

// MaxCredentialsBytes bounds a credentials file.
const MaxCredentialsBytes = 1 << 20

// credentialTypes are the credential file types the client takes as bytes.
var credentialTypes = map[string]bool{
	string(option.ServiceAccount): true, string(option.AuthorizedUser): true,
	string(option.ImpersonatedServiceAccount): true, string(option.ExternalAccount): true,
	"external_account_authorized_user": true, "gdc_service_account": true,
}

// fileKeys are credential fields that name a file or a command the
// library would read or run on its own, at every token refresh.
var fileKeys = []string{"file", "executable", "certificate_config_location", "use_default_certificate_config"}

// ReadFiles returns o with the credentials the Google client would find on
// its own read once (lookup is os.LookupEnv in production): the file
// GOOGLE_APPLICATION_CREDENTIALS names, else gcloud's well-known file when
// it exists, through boundedfile, then handed to the client as bytes. An
// endpoint reached in plaintext reads nothing. It refuses, naming the
// variable: a credentials file that is not a regular file of at most
// MaxCredentialsBytes, not JSON of a known type, or that names further
// files or commands; client certificates (GOOGLE_API_USE_CLIENT_CERTIFICATE
// not false while a certificate config exists or is named) and S2A.
func (o Options) ReadFiles(lookup func(string) (string, bool)) (Options, error) {
	o.FilesRead = true
	if o.plaintext() {
		return o, nil
	}
	errs := []error{checkClientCertificates(lookup), checkS2A(lookup)}
	data, name, err := readCredentials(lookup)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return o, fmt.Errorf("google credentials: %w", err)
	}
	if data != nil {
		typ, err := credentialsType(data)
		if err != nil {
			return o, fmt.Errorf("google credentials: %s: %w", name, err)
		}
		o.credentials = option.WithAuthCredentialsJSON(option.CredentialsType(typ), data)
	}
	return o, nil
}

// readCredentials reads the credentials file; nil data: none (the
// metadata server provides them). name says where the file came from.
func readCredentials(lookup func(string) (string, bool)) ([]byte, string, error) {
	if path, _ := lookup(EnvCredentials); path != "" {
		name := EnvCredentials + "=" + path
		data, err := boundedfile.Read(path, MaxCredentialsBytes)
		if err != nil {
			return nil, name, fmt.Errorf("%s: %w", name, err)
		}
		return data, name, nil
	}
	path := wellKnownFile(lookup, "application_default_credentials.json")
	data, err := boundedfile.Read(path, MaxCredentialsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	name := path + " (gcloud's well-known file, found through " + homeVar() + ")"
	if err != nil {
		return nil, name, fmt.Errorf("%s: %w", name, err)
	}
	return data, name, nil
}

// credentialsType is the type of a credentials file, refused when unknown
// or when the file names further files or commands.
func credentialsType(data []byte) (string, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("not JSON: %w", err)
	}
	typ, _ := doc["type"].(string)
	if !credentialTypes[typ] {
		return "", fmt.Errorf("credentials type %q is not one of service_account, authorized_user, impersonated_service_account, external_account, external_account_authorized_user, gdc_service_account", typ)
	}
	if key, where := findKey(doc, fileKeys, "$"); key != "" {
		return "", fmt.Errorf("%s: %q names a file or command the Google library would read or run on its own, unbounded; use a credential source the library fetches (url, the metadata server)", where, key)
	}
	return typ, nil
}

// findKey finds one of keys anywhere in v; where is its JSON path.
func findKey(v any, keys []string, at string) (string, string) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			for _, want := range keys {
				if k == want {
					return k, at + "." + k
				}
			}
			if key, where := findKey(child, keys, at+"."+k); key != "" {
				return key, where
			}
		}
	case []any:
		for i, child := range x {
			if key, where := findKey(child, keys, fmt.Sprintf("%s[%d]", at, i)); key != "" {
				return key, where
			}
		}
	}
	return "", ""
}

// checkClientCertificates refuses what would make the library read client
// certificate configs: GOOGLE_API_CERTIFICATE_CONFIG set, or
// GOOGLE_API_USE_CLIENT_CERTIFICATE not false while a default certificate
// config exists (unset, the library turns client certificates on for
// googleapis.com).
func checkClientCertificates(lookup func(string) (string, bool)) error {
	v, set := lookup(EnvUseClientCertificate)
	on, _ := strconv.ParseBool(v)
	if set && !on {
		return nil
	}
	if path, _ := lookup(EnvCertificateConfig); path != "" {
		return fmt.Errorf("%s=%s: client certificate configs are read by the Google library on its own and are not supported; unset it or set %s=false", EnvCertificateConfig, path, EnvUseClientCertificate)
	}
	if set && on {
		return fmt.Errorf("%s=%s: client certificates are read by the Google library on its own and are not supported; set it to false", EnvUseClientCertificate, v)
	}
	for _, path := range []string{
		wellKnownFile(lookup, "certificate_config.json"),
		filepath.Join(home(lookup), ".secureConnect", "context_aware_metadata.json"),
	} {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s exists (found through %s) and the Google library would read it on its own; set %s=false", path, homeVar(), EnvUseClientCertificate)
		}
	}
	return nil
}

func checkS2A(lookup func(string) (string, bool)) error {
	v, _ := lookup(EnvUseS2A)
	if strings.EqualFold(v, "true") {
		return fmt.Errorf("%s=%s: S2A reads the metadata server's mTLS files on its own and is not supported", EnvUseS2A, v)
	}
	return nil
}

// wellKnownFile is gcloud's config file name, located as the library
// locates it: %APPDATA%\gcloud on Windows, else $HOME/.config/gcloud.
func wellKnownFile(lookup func(string) (string, bool), name string) string {
	if homeVar() == EnvAppData {
		v, _ := lookup(EnvAppData)
		return filepath.Join(v, "gcloud", name)
	}
	return filepath.Join(home(lookup), ".config", "gcloud", name)
}

func home(lookup func(string) (string, bool)) string {
	if v, _ := lookup(EnvHome); v != "" {
		return v
	}
	h, _ := os.UserHomeDir()
	return h
}

// homeVar is the variable through which the library finds gcloud's
// config folder on this system.
func homeVar() string {
	if runtime.GOOS == "windows" {
		return EnvAppData
	}
	return EnvHome
}
