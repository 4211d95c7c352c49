package s3url

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/logging"
)

// imdsFallback is the SDK's warning when the EC2 metadata service refuses
// an IMDSv2 token: printed on every machine that is not an EC2 instance
// (a laptop, a CI runner, a pod talking to MinIO) the first time the
// credential chain reaches the metadata service. It is no error of the
// run's, and the credentials error that follows, if any, says it all.
const imdsFallback = "falling back to IMDSv1"

// sdkLogger passes the SDK's log lines to slog (so they reach the run's
// log, not a bare "SDK <date> WARN" line on stderr), leaving out the
// IMDSv1 fallback warning.
var sdkLogger = logging.LoggerFunc(func(c logging.Classification, format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if strings.Contains(msg, imdsFallback) {
		return
	}
	level := slog.LevelDebug
	if c == logging.Warn {
		level = slog.LevelWarn
	}
	slog.Log(context.Background(), level, "aws sdk: "+msg)
})

// credentialsHint is added to a failure to find credentials, which the SDK
// reports as the last source it tried ("no EC2 IMDS role found").
const credentialsHint = "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (or ?profile= in the store URL), or run with an instance or pod role; for a public bucket add ?anonymous=true"

// withCredentials gives cfg (as gocloud.dev built it from the URL's
// parameters q) the SDK's default credential chain loaded with sdkLogger,
// so that reaching the metadata service prints nothing of its own, and a
// chain that finds nothing says what to set. Anonymous access and an
// assumed role (?anonymous=, ?role=) keep the credentials gocloud.dev made.
func withCredentials(ctx context.Context, cfg aws.Config, q url.Values) (aws.Config, error) {
	cfg.Logger = sdkLogger
	if q.Get("anonymous") != "" || q.Get("role") != "" {
		return cfg, nil
	}
	opts := []func(*config.LoadOptions) error{config.WithLogger(sdkLogger), config.WithRegion(cfg.Region)}
	if p := q.Get("profile"); p != "" {
		opts = append(opts, config.WithSharedConfigProfile(p))
	}
	base, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return cfg, err
	}
	chain := base.Credentials
	cfg.Credentials = aws.NewCredentialsCache(aws.CredentialsProviderFunc(func(ctx context.Context) (aws.Credentials, error) {
		c, err := chain.Retrieve(ctx)
		if err != nil {
			return c, &NoCredentialsError{Cause: err}
		}
		return c, nil
	}))
	return cfg, nil
}

// NoCredentialsError is the error of every request made while the SDK's
// credential chain finds no credentials; Cause is the chain's own error.
type NoCredentialsError struct{ Cause error }

func (e *NoCredentialsError) Error() string { return credentialsHint + ": " + e.Cause.Error() }
func (e *NoCredentialsError) Unwrap() error { return e.Cause }

// Fix says what to set, without the chain's detail: for the one line a
// run prints before it gives up.
func (e *NoCredentialsError) Fix() string { return credentialsHint }
