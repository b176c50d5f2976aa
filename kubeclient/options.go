package kubeclient

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"k8s.io/client-go/rest"
)

// Defaults of Options, applied where a field is zero. QPS and Burst are
// hyperfleet-adapter's (clients.kubernetes.qps and burst, 0 meaning these).
const (
	DefaultTimeout          = 30 * time.Second
	DefaultQPS              = 100
	DefaultBurst            = 200
	DefaultFieldManager     = "bundle-adapter"
	DefaultUserAgent        = "bundle-adapter"
	DefaultMaxListItems     = 1000
	DefaultMaxResponseBytes = 64 << 20
)

// Options configure New. The zero value is usable inside a pod: in-cluster
// configuration with every default below.
type Options struct {
	// Kubeconfig is the path of a kubeconfig file ("" = in-cluster config:
	// the pod's service account token and CA, as hyperfleet-adapter's
	// clients.kubernetes.kube_config_path).
	Kubeconfig string
	// Context is the kubeconfig context to use ("" = its current-context).
	// It needs Kubeconfig.
	Context string
	// Timeout bounds each request to the API server (default 30s).
	Timeout time.Duration
	// QPS and Burst rate-limit the client (defaults 100 and 200).
	QPS   float32
	Burst int
	// FieldManager owns the fields the adapter writes (default
	// "bundle-adapter"). Two deployments managing the same objects must not
	// share it.
	FieldManager string
	// UserAgent is sent with every request (default "bundle-adapter").
	UserAgent string
	// Logger receives debug records of writes; nil discards them.
	Logger *slog.Logger
	// MaxListItems is the most objects List returns (default 1000); beyond
	// it List fails with adapter.ErrInvalid instead of holding them all.
	MaxListItems int
	// MaxResponseBytes bounds one response body of the API server (default
	// 64 MiB); a longer body fails the call with adapter.ErrInvalid.
	MaxResponseBytes int64
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.QPS <= 0 {
		o.QPS = DefaultQPS
	}
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.FieldManager == "" {
		o.FieldManager = DefaultFieldManager
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxListItems <= 0 {
		o.MaxListItems = DefaultMaxListItems
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	return o
}

// restConfig loads the kubeconfig (or the in-cluster config) and applies
// the options. Every file is read through the bounded reader and handed to
// client-go as bytes (loadKubeconfig). Errors name the file or say that no
// in-cluster config exists.
func (o Options) restConfig() (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	switch {
	case o.Kubeconfig != "":
		if cfg, err = loadKubeconfig(o.Kubeconfig, o.Context); err != nil {
			return nil, err
		}
	case o.Context != "":
		return nil, errors.New("kubernetes context " + o.Context + " given without a kubeconfig")
	default:
		cfg, err = inClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("no kubeconfig given and no in-cluster config: %w", err)
		}
	}
	return o.apply(cfg), nil
}

// apply sets the options on a copy of cfg: rate limits, timeout, user agent
// and the response size bound.
func (o Options) apply(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = o.QPS
	cfg.Burst = o.Burst
	cfg.Timeout = o.Timeout
	cfg.UserAgent = o.UserAgent
	cfg.Wrap(limitBodies(o.MaxResponseBytes))
	return cfg
}

// CheckConfig loads the kubeconfig the options name exactly as New does
// (every file it names read, its context resolved), without contacting the
// API server, so validate fails on what serve would fail on. Without a
// kubeconfig (in-cluster) there is nothing to check outside the pod: nil.
func CheckConfig(o Options) error {
	if o.Kubeconfig == "" && o.Context == "" {
		return nil
	}
	_, err := o.withDefaults().restConfig()
	return err
}
