package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The operations page of the web app watches the replicas it is told of and sends them the
// operator's token, or the admin token typed into it: the origin that served it, and the
// replicas OPERATIONS_REPLICAS names, which /config.json lists. Each must be https, or http on
// this machine, so that no token crosses a network in the clear.

// replicaURLs reads OPERATIONS_REPLICAS: a comma-separated list of replicas' base URLs, each
// made canonical (no trailing slash).
func replicaURLs(name, value string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(value, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		base, err := replicaURL(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, base)
	}
	return out, nil
}

var errReplicaURL = errors.New("each replica must be a base URL such as https://replica-2.library.example.org " +
	"(https, or http on this machine only), without user, query or fragment")

// replicaURL is a replica's base URL, canonical, or why it can't be one.
func replicaURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" {
		return "", errReplicaURL
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && isLoopback(u.Hostname()):
	default:
		return "", errReplicaURL
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}

// checkReplicas refuses a replica that FromEnv would not have read (a Config made in code).
func checkReplicas(replicas []string) error {
	for _, r := range replicas {
		if _, err := replicaURL(r); err != nil {
			return fmt.Errorf("OPERATIONS_REPLICAS: %w", err)
		}
	}
	return nil
}
