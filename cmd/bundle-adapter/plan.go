package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker/pubsub"
	"github.com/bundle-adapter/bundle-adapter/broker/rabbitmq"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/kubeclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/tracing"
)

// startPlan is everything serve builds from the config before it connects
// to anything: which transports it uses and the options of each client,
// every one already checked as that client checks it. planServe is the
// only place serve's start-up refuses a config; validate runs it too, so a
// config validate passes is one serve starts, and what can still stop
// serve is the outside world (a broker, Maestro, API server or kubeconfig
// of the pod that cannot be reached).
type startPlan struct {
	maestro *maestroclient.Options // nil: no maestro transport
	kube    *kubeclient.Options    // nil: no kubernetes transport
	// kubeClient is built already when the kubeconfig is a file (building
	// it reads the file and connects to nothing); nil in-cluster, where
	// the pod provides the credentials at run time.
	kubeClient *kubeclient.Client
	rabbitmq   *rabbitmq.Options // the broker's consumer: one of these two
	pubsub     *pubsub.Options
	// shadow: serve --shadow (useShadow).
	shadow bool
	// tracing and tracingWarns: tracingPlan's.
	tracing      tracing.Config
	tracingWarns []string
}

// planServe checks cfg as serve's start-up would, without the network:
// the transports the task needs (config.Transports) and their clients'
// options (TLS files read, a kubeconfig file loaded), the task against
// the environment (adapter.CheckTask), and the broker consumer's options
// with the names it derives, and tracing (tracingPlan: the files the OTLP
// exporter would read). A nil cfg.Broker (validate without
// --broker-config) skips the consumer. Every problem is reported at once.
//
// With shadow the plan is a shadow replica's (useShadow) and its derived
// names are the ones checked. Without, the names a shadow of this config
// would derive are checked too (a shadow started later must not fail on
// them), and a subscription whose name ends in "-shadow" (a shadow's) is
// refused.
func planServe(cfg *config.Config, shadow bool, log *slog.Logger) (*startPlan, error) {
	p := &startPlan{}
	var errs []error
	useMaestro, useKube := cfg.Transports()
	if useMaestro {
		o := maestroOptions(cfg.Adapter.Clients.Maestro, log)
		if err := o.Check(); err != nil {
			errs = append(errs, fmt.Errorf("maestro client (clients.maestro): %w", err))
		}
		p.maestro = &o
	}
	if useKube {
		o := kubeOptions(cfg.Adapter.Clients.Kubernetes, log)
		if o.Kubeconfig != "" {
			kc, err := kubeclient.New(o)
			if err != nil {
				errs = append(errs, fmt.Errorf("kubernetes client (clients.kubernetes.kube_config_path): %w", err))
			}
			p.kubeClient = kc
		}
		p.kube = &o
	}
	if err := adapter.CheckTask(cfg.Task, useMaestro, useKube, os.LookupEnv); err != nil {
		errs = append(errs, err)
	}
	if cfg.Broker != nil {
		err := p.planConsumer(cfg, log)
		if err == nil {
			err = p.planShadowNames(shadow)
		}
		errs = append(errs, err)
	}
	var err error
	p.tracing, p.tracingWarns, err = tracingPlan(cfg)
	errs = append(errs, err)
	return p, errors.Join(errs...)
}

// planConsumer checks the options of the consumer the broker config
// selects, with the queue, exchange or subscription names they derive.
func (p *startPlan) planConsumer(cfg *config.Config, log *slog.Logger) error {
	switch t := cfg.Broker.Settings.Type; t {
	case "rabbitmq":
		o := rabbitmqOptions(cfg, log)
		p.rabbitmq = &o
		if err := o.Check(); err != nil {
			return fmt.Errorf("broker consumer (broker.rabbitmq of the broker config, clients.broker of the adapter config): %w", err)
		}
		return nil
	case "googlepubsub":
		o := pubsubOptions(cfg, log)
		p.pubsub = &o
		if err := o.Check(); err != nil {
			return fmt.Errorf("broker consumer (broker.googlepubsub of the broker config, clients.broker of the adapter config): %w", err)
		}
		read, err := o.ReadFiles(os.LookupEnv)
		if err != nil {
			return fmt.Errorf("broker consumer (broker.googlepubsub): %w", err)
		}
		p.pubsub = &read
		return nil
	default:
		return fmt.Errorf("broker type %q is not supported", t)
	}
}

// kubeClientOrNew is the kubernetes client planServe built, or a new one
// from the plan's options (in-cluster).
func (p *startPlan) kubeClientOrNew() (*kubeclient.Client, error) {
	if p.kubeClient != nil {
		return p.kubeClient, nil
	}
	return kubeclient.New(*p.kube)
}
