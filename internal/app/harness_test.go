package app_test

// The wiring's tests share the feature tests' harness, internal/testkit/apitest; these names keep them
// short.

import (
	"testing"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

type (
	api        = apitest.API
	response   = apitest.Response
	result     = apitest.Result
	obj        = apitest.Obj
	loan       = apitest.Loan
	statusView = apitest.StatusView
)

const adminToken = apitest.AdminToken

var (
	stores       = apitest.Stores
	newClock     = apitest.NewClock
	startService = apitest.StartService
	launch       = func(t *testing.T, cfg app.Config) apitest.Service {
		return apitest.Launch(t, cfg, apitest.ServiceLogger(t, cfg))
	}
	runService        = apitest.RunService
	runServiceLogging = apitest.RunServiceLogging
	forEachStore      = apitest.ForEachStore
	fastBackground    = apitest.FastBackground
	eventually        = apitest.Eventually
	mustJSON          = apitest.MustJSON
	requireResult     = apitest.RequireResult
	requireEvent      = apitest.RequireEvent
	requireProblem    = apitest.RequireProblem
	requireJSON       = apitest.RequireJSON
	requireKeys       = apitest.RequireKeys
	emailPosition     = apitest.EmailPosition
	testLog           = apitest.TestLog
	addBook           = apitest.AddBook
	lend              = apitest.Lend
	requireReplay     = apitest.RequireReplay
	getAccount        = apitest.GetAccount
	fine              = apitest.Fine
	pay               = apitest.Pay
	setContact        = apitest.SetContact
	getStatus         = apitest.GetStatus
	processorStatus   = apitest.ProcessorStatus
	buildName         = apitest.BuildName
	caughtUp          = apitest.CaughtUp
	admin             = apitest.Admin
	listParked        = apitest.ListParked
)
