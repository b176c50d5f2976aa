package tracing

import (
	"log/slog"

	"go.opentelemetry.io/otel"
)

// LogErrors sends the OpenTelemetry SDK's errors (an export that failed, a
// collector that cannot be reached) to log as warnings instead of the
// standard logger. It sets the process-wide OpenTelemetry error handler.
func LogErrors(log *slog.Logger) {
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("tracing: OpenTelemetry error", "error", err.Error())
	}))
}
