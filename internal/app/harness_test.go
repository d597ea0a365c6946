package app_test

// The wiring's tests share the feature tests' harness, internal/apitest; these names keep them
// short.

import "library/internal/apitest"

type (
	api        = apitest.API
	response   = apitest.Response
	result     = apitest.Result
	event      = apitest.Event
	problem    = apitest.Problem
	obj        = apitest.Obj
	clock      = apitest.Clock
	loan       = apitest.Loan
	account    = apitest.Account
	statusView = apitest.StatusView
	parkedList = apitest.ParkedList
)

const adminToken = apitest.AdminToken

var (
	t0                = apitest.T0
	stores            = apitest.Stores
	newClock          = apitest.NewClock
	startService      = apitest.StartService
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
	strictDecode      = apitest.StrictDecode
	requireKeys       = apitest.RequireKeys
	badIDs            = apitest.BadIDs
	requireBadPathIDs = apitest.RequireBadPathIDs
	requireBodyErrors = apitest.RequireBodyErrors
	withInvalidUTF8   = apitest.WithInvalidUTF8
	bodyOfSize        = apitest.BodyOfSize
	requireMessageID  = apitest.RequireMessageID
	emailPosition     = apitest.EmailPosition
	checkContract     = apitest.CheckContract
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
	caughtUp          = apitest.CaughtUp
	admin             = apitest.Admin
	listParked        = apitest.ListParked
)
