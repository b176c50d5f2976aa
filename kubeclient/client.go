package kubeclient

import (
	"fmt"
	"log/slog"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Client is adapter.Kube over one Kubernetes API server, through client-go's
// dynamic client. It is safe for concurrent use.
type Client struct {
	dyn          dynamic.Interface
	disco        discovery.DiscoveryInterface
	mapper       *mapper
	fieldManager string
	maxList      int
	log          *slog.Logger
}

var _ adapter.Kube = (*Client)(nil)

// New builds a Client from the kubeconfig (or in-cluster config) the options
// name. It does not contact the API server: discovery runs at the first call
// that needs a kind's resource, and Ping checks reachability. An error names
// the kubeconfig file or says why no in-cluster config was found.
func New(o Options) (*Client, error) {
	o = o.withDefaults()
	cfg, err := o.restConfig()
	if err != nil {
		return nil, err
	}
	return newForConfig(cfg, o)
}

// NewForConfig builds a Client on an existing rest.Config (tests, or callers
// that already hold one); Kubeconfig and Context of o are ignored, its other
// fields apply.
func NewForConfig(cfg *rest.Config, o Options) (*Client, error) {
	o = o.withDefaults()
	return newForConfig(o.apply(cfg), o)
}

func newForConfig(cfg *rest.Config, o Options) (*Client, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", cfg.Host, err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes discovery client for %s: %w", cfg.Host, err)
	}
	return &Client{
		dyn:          dyn,
		disco:        disco,
		mapper:       newMapper(disco),
		fieldManager: o.FieldManager,
		maxList:      o.MaxListItems,
		log:          o.Logger,
	}, nil
}
