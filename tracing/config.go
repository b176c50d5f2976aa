package tracing

import (
	"crypto/tls"
	"fmt"
	"strconv"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

// Environment variables read by FromEnv. The exporter also reads the other
// standard OTEL_EXPORTER_OTLP_* variables itself (headers, TLS files,
// timeout, compression), and the batch span processor OTEL_BSP_*.
const (
	EnvEnabled         = "HYPERFLEET_TRACING_ENABLED"
	EnvSDKDisabled     = "OTEL_SDK_DISABLED"
	EnvServiceName     = "OTEL_SERVICE_NAME"
	EnvEndpoint        = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint  = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol        = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol  = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvSampler         = "OTEL_TRACES_SAMPLER"
	EnvSamplerArg      = "OTEL_TRACES_SAMPLER_ARG"
	EnvPropagators     = "OTEL_PROPAGATORS"
	EnvResourceAttribs = "OTEL_RESOURCE_ATTRIBUTES"
)

// Protocols of the OTLP exporter.
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http/protobuf"
)

// Defaults, as hyperfleet-adapter's chart sets them.
const (
	DefaultProtocol    = ProtocolGRPC
	DefaultSampler     = "parentbased_always_on"
	DefaultPropagators = "tracecontext,baggage"
)

// Config says whether and how to trace. The zero value is off.
type Config struct {
	// Enabled turns tracing on. Off, nothing is set up and no span is
	// started anywhere.
	Enabled bool
	// ServiceName is the service.name resource attribute
	// (OTEL_SERVICE_NAME; default: the adapter's name).
	ServiceName string
	// ServiceVersion is service.version (the build's version).
	ServiceVersion string
	// Endpoint is set when an OTLP endpoint variable is; the exporter reads
	// the value itself. Empty: spans are written to stdout as JSON, one
	// per line, as hyperfleet-adapter does for local development. It may
	// carry user info, so it is a secret.URL: every printed form redacts.
	// (OTEL_EXPORTER_OTLP_HEADERS, which may hold tokens, is read by the
	// exporter alone and never held or printed here.)
	Endpoint secret.URL
	// Protocol is grpc (default) or http/protobuf.
	Protocol string
	// Sampler is an OTEL_TRACES_SAMPLER value (default
	// parentbased_always_on); SamplerArg the ratio of the ratio samplers
	// (default 1.0).
	Sampler    string
	SamplerArg float64
	// Propagators are the OTEL_PROPAGATORS names for outgoing HTTP
	// requests: tracecontext and baggage are known, none means no
	// header at all.
	Propagators []string
	// TLS is the exporter's TLS configuration from the files the
	// OTEL_EXPORTER_OTLP_*CERTIFICATE and *CLIENT_KEY variables name
	// (ReadFiles; nil: none set). FilesRead says ReadFiles ran: Setup
	// refuses an OTLP endpoint while one of those variables is set and
	// they were not read, rather than let the exporter read them. Not a
	// configuration value (yaml and json "-"): it is never dumped or
	// printed, as it holds the client key read from its file.
	TLS       *tls.Config `yaml:"-" json:"-"`
	FilesRead bool
}

// FromEnv reads the configuration from the environment through lookup
// (os.LookupEnv in production). defaultName is the service name when
// OTEL_SERVICE_NAME is not set. Values that cannot be used are replaced by
// their defaults and reported in warnings (an endpoint whose credentials
// could be misread is not used; the warning masks it); FromEnv never fails.
//
// Tracing is on when HYPERFLEET_TRACING_ENABLED is true, or when it is not
// set and an OTLP endpoint variable is; OTEL_SDK_DISABLED=true turns it
// off whatever else is set. hyperfleet-adapter's binary traces unless told
// not to; here nothing is traced unless asked for (its chart sets
// HYPERFLEET_TRACING_ENABLED always, so values files mean the same).
func FromEnv(lookup func(string) (string, bool), defaultName, version string) (Config, []string) {
	var warns []string
	get := func(k string) string { v, _ := lookup(k); return strings.TrimSpace(v) }
	c := Config{ServiceName: defaultName, ServiceVersion: version}
	c.Endpoint, warns = endpoint(get(EnvTracesEndpoint), get(EnvEndpoint), warns)
	c.Enabled = !c.Endpoint.IsZero()
	if v := get(EnvEnabled); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s=%q is not a boolean; tracing stays %s", EnvEnabled, v, onOff(c.Enabled)))
		} else {
			c.Enabled = on
		}
	}
	if disabled, _ := strconv.ParseBool(get(EnvSDKDisabled)); disabled {
		c.Enabled = false
	}
	if n := get(EnvServiceName); n != "" {
		c.ServiceName = n
	}
	c.Protocol, warns = protocol(get(EnvTracesProtocol), get(EnvProtocol), warns)
	c.Sampler, c.SamplerArg, warns = sampler(get(EnvSampler), get(EnvSamplerArg), warns)
	c.Propagators, warns = propagators(firstSet(get(EnvPropagators), DefaultPropagators), warns)
	return c, warns
}

// endpoint is the traces endpoint, else the general one. One whose user
// info could be misread (secret.CheckAddress: "https://user:1234/S3CRET@h")
// is refused with a warning that masks it, and no endpoint is used.
func endpoint(traces, general string, warns []string) (secret.URL, []string) {
	name, v := EnvTracesEndpoint, traces
	if v == "" {
		name, v = EnvEndpoint, general
	}
	if err := secret.CheckAddress(v); err != nil {
		return secret.URL{}, append(warns, fmt.Sprintf("%s %v; it is not used", name, err))
	}
	if v == "" {
		return secret.URL{}, warns
	}
	return secret.NewURL(v), warns
}

func protocol(traces, general string, warns []string) (string, []string) {
	name, v := EnvTracesProtocol, traces
	if v == "" {
		name, v = EnvProtocol, general
	}
	switch strings.ToLower(v) {
	case "", ProtocolGRPC:
		return ProtocolGRPC, warns
	case ProtocolHTTP, "http":
		return ProtocolHTTP, warns
	}
	return DefaultProtocol, append(warns, fmt.Sprintf("%s=%q is not grpc or http/protobuf; using %s", name, v, DefaultProtocol))
}

// samplers are the OTEL_TRACES_SAMPLER values understood.
var samplers = map[string]bool{
	"always_on": true, "always_off": true, "traceidratio": true,
	"parentbased_always_on": true, "parentbased_always_off": true, "parentbased_traceidratio": true,
}

func sampler(name, arg string, warns []string) (string, float64, []string) {
	name = strings.ToLower(name)
	if name == "" {
		name = DefaultSampler
	}
	if !samplers[name] {
		warns = append(warns, fmt.Sprintf("%s=%q is not a known sampler; using %s", EnvSampler, name, DefaultSampler))
		name = DefaultSampler
	}
	ratio := 1.0
	if arg != "" {
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			warns = append(warns, fmt.Sprintf("%s=%q is not a ratio between 0 and 1; using 1.0", EnvSamplerArg, arg))
		} else {
			ratio = r
		}
	}
	return name, ratio, warns
}

func propagators(list string, warns []string) ([]string, []string) {
	var out []string
	for _, p := range strings.Split(list, ",") {
		switch p = strings.ToLower(strings.TrimSpace(p)); p {
		case "":
		case "tracecontext", "baggage", "none":
			out = append(out, p)
		default:
			warns = append(warns, fmt.Sprintf("%s: propagator %q is not supported here (tracecontext, baggage, none); ignored", EnvPropagators, p))
		}
	}
	return out, warns
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
