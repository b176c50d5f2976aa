package pubsub

import (
	"net"
	"strings"

	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// endpointOptions are the client options for Options.Endpoint. An endpoint
// is reached in plaintext and without credentials (an emulator or pstest)
// only when Insecure is set or it is a loopback address; any other
// endpoint is reached over TLS with the credentials of ClientOptions or
// Application Default Credentials, like Google's own endpoint.
func endpointOptions(o Options) []option.ClientOption {
	if o.Endpoint == "" {
		return nil
	}
	opts := []option.ClientOption{option.WithEndpoint(o.Endpoint)}
	if !o.plaintext() {
		return opts
	}
	return append(opts,
		option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
		option.WithTelemetryDisabled(),
	)
}

// plaintext reports whether Endpoint is reached without TLS.
func (o Options) plaintext() bool {
	return o.Endpoint != "" && (o.Insecure || loopbackEndpoint(o.Endpoint))
}

// loopbackEndpoint reports a host:port whose host is "localhost" or a
// loopback IP address (127.0.0.0/8, ::1). Names are not resolved.
func loopbackEndpoint(endpoint string) bool {
	host, _, err := net.SplitHostPort(endpoint)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
