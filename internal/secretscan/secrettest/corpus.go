// Package secrettest is the test corpus of the secret rule (issue 22):
// fake but format-valid credentials of many families, and near misses
// that must pass. The values are generated at run time from a fixed seed
// and literal prefixes split in two, so the repository holds no string a
// push-protection scanner would take for a credential. Only tests import
// it.
package secrettest

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
)

// Case is one credential: the gitleaks rule that must report it, and the
// text that holds it (one line, or several for a private key, reported at
// its first line).
type Case struct {
	Family string // a short human name
	RuleID string // the gitleaks rule id
	Text   string // the line(s) to place in a file
	Secret string // the value, which no output may hold
}

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	alnum  = upper + lower + digits
	lalnum = lower + digits
	lhex   = "0123456789abcdef"
	word   = alnum + "_"
	wordd  = alnum + "_-"
)

type gen struct{ r *rand.Rand }

func (g gen) s(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

// j joins parts; prefixes are written split so no source line holds one
// whole.
func j(parts ...string) string { return strings.Join(parts, "") }

// Cases returns the corpus, the same on every call.
func Cases() []Case {
	g := gen{rand.New(rand.NewPCG(22, 2026))}
	c := func(family, rule, context, secret string) Case {
		return Case{Family: family, RuleID: rule, Text: context + secret, Secret: secret}
	}
	jwtHeader := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	jwtBody := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"` + g.s(lalnum, 12) + `","name":"Fake User","iat":1767225600}`))
	key := func() string {
		var b strings.Builder
		for range 4 {
			b.WriteString(g.s(alnum+"+/", 64))
			b.WriteByte('\n')
		}
		return b.String()
	}
	keyBody := key()
	return []Case{
		c("GitLab personal access token", "gitlab-pat", "gitlab: ", j("glp", "at-", g.s(wordd, 20))),
		c("npm access token", "npm-access-token", "//registry.npmjs.org/:_authToken=", j("np", "m_", g.s(lalnum, 36))),
		c("PyPI upload token", "pypi-upload-token", "password = ", j("py", "pi-AgEIcHlwaS5vcmc", g.s(wordd, 60))),
		c("GitHub fine-grained token", "github-fine-grained-pat", "GH: ", j("git", "hub_pat_", g.s(word, 82))),
		c("GitHub classic token", "github-pat", "GH: ", j("gh", "p_", g.s(alnum, 36))),
		c("OpenAI project key", "openai-api-key", "openai ", j("sk", "-proj-", g.s(wordd, 74), "T3Blbk", "FJ", g.s(wordd, 74))),
		c("Anthropic API key", "anthropic-api-key", "anthropic ", j("sk", "-ant-api03-", g.s(wordd, 93), "AA")),
		c("Slack bot token", "slack-bot-token", "slack ", j("xo", "xb-", g.s(digits, 12), "-", g.s(digits, 12), "-", g.s(alnum, 24))),
		c("Slack webhook", "slack-webhook-url", "hook ", j("https://hooks.", "slack.com/services/T", g.s(upper+digits, 8), "/B", g.s(upper+digits, 8), "/", g.s(alnum, 24))),
		c("SendGrid API key", "sendgrid-api-token", "mail ", j("S", "G.", g.s(wordd, 22), ".", g.s(wordd, 43))),
		c("Shopify access token", "shopify-access-token", "shop ", j("shp", "at_", g.s(lhex, 32))),
		c("DigitalOcean token", "digitalocean-pat", "do ", j("dop", "_v1_", g.s(lhex, 64))),
		c("HashiCorp Vault token", "vault-service-token", "VAULT_TOKEN=", j("hv", "s.", g.s(wordd, 100))),
		c("Linear API key", "linear-api-key", "linear ", j("lin", "_api_", g.s(alnum, 40))),
		c("Doppler token", "doppler-api-token", "doppler ", j("dp", ".pt.", g.s(alnum, 43))),
		c("JSON Web Token", "jwt", "Authorization: Bearer ", j(jwtHeader, ".", jwtBody, ".", g.s(wordd, 43))),
		c("Grafana service account token", "grafana-service-account-token", "grafana ", j("gl", "sa_", g.s(alnum, 32), "_", g.s(lhex, 8))),
		c("Stripe live key", "stripe-access-token", "stripe ", j("sk", "_live_", g.s(alnum, 24))),
		c("AWS access key id", "aws-access-token", "aws ", j("AK", "IA", g.s(upper+"234567", 16))),
		c("Google Cloud API key", "gcp-api-key", "gcp ", j("AI", "za", g.s(wordd, 35))),
		c("Azure AD client secret", "azure-ad-client-secret", "client_secret=", j(g.s(alnum, 3), g.s(digits, 1), "Q", "~", g.s(alnum+"_~.-", 34))),
		c("Twilio API key", "twilio-api-key", "twilio ", j("S", "K", g.s(lhex, 32))),
		c("Mailgun private key", "mailgun-private-api-token", "mailgun_api_key = ", j("ke", "y-", g.s(lhex, 32))),
		c("Heroku API key", "heroku-api-key-v2", "heroku ", j("HR", "KU-AA", g.s(wordd, 58))),
		c("Datadog access token", "datadog-access-token", "datadog_app_key = ", g.s(lalnum, 40)),
		{Family: "private key", RuleID: "private-key",
			Text:   j("-----BEG", "IN RSA PRIVATE KEY-----\n", keyBody, "-----END RSA PRIVATE KEY-----"),
			Secret: strings.SplitN(keyBody, "\n", 2)[0]},
		c("Hugging Face token", "huggingface-access-token", "hf ", j("h", "f_", g.s(upper+lower, 34))),
		c("age secret key", "age-secret-key", "age ", j("AGE-SEC", "RET-KEY-1", g.s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58))),
		c("Postman API key", "postman-api-token", "postman ", j("PM", "AK-", g.s(lhex, 24), "-", g.s(lhex, 34))),
		c("Pulumi access token", "pulumi-api-token", "pulumi ", j("pu", "l-", g.s(lhex, 40))),
		c("Databricks token", "databricks-api-token", "databricks ", j("da", "pi", g.s(lhex, 32))),
		c("PlanetScale token", "planetscale-api-token", "pscale ", j("pscale", "_tkn_", g.s(alnum, 43))),
	}
}

// NearMisses are texts that look like credentials and must pass: commit
// ids, UUIDs, prose about tokens, truncated keys, placeholders, and
// documentation examples the rules allowlist.
func NearMisses() []string {
	g := gen{rand.New(rand.NewPCG(17, 22))}
	uuid := j(g.s(lhex, 8), "-", g.s(lhex, 4), "-4", g.s(lhex, 3), "-a", g.s(lhex, 3), "-", g.s(lhex, 12))
	return []string{
		"Fixed in commit " + g.s(lhex, 40) + " (reverts " + g.s(lhex, 12) + ").",
		"Request id " + uuid + " failed twice.",
		"Rotate the GitHub token and the Slack webhook every quarter; the API key lives in the team's secret store.",
		"Never paste a private key or a password into memory: use the credential helper.",
		"A GitHub classic token starts with " + j("gh", "p_") + " and GitLab's with " + j("glp", "at-") + ".",
		"truncated: " + j("gh", "p_") + g.s(alnum, 12) + " and " + j("glp", "at-") + g.s(alnum, 9),
		"truncated AWS id " + j("AK", "IA") + g.s(upper, 8),
		"export OPENAI_API_KEY=" + j("sk", "-..."),
		"export GITHUB_TOKEN=" + j("gh", "p_...") + " # set in CI",
		"SLACK_BOT_TOKEN=" + j("xo", "xb-...") + " (ask ops)",
		"password = ${DB_PASSWORD}",
		"api_key: {{ .Values.apiKey }}",
		"Authorization: Bearer <token>",
		"The AWS documentation example key is " + j("AK", "IAIOSFODNN7", "EXAMPLE") + ".",
		"Google's sample key " + j("AI", "zaSyabcdefghijklmnopqrstuvwxyz1234567") + " is public.",
		"sha256:" + g.s(lhex, 64),
	}
}
