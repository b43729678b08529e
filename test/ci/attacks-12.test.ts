// The attack catalogue against every algorithm at twelve boards, the firmware's largest
// cluster (MAX_NODES): the envelope the docs promise, not only the three-board corner.
import { MAX_NODES } from "../../src/core/limits"
import { attackSuite, idsUpTo, useFakeTimers } from "../attack-catalogue"

useFakeTimers()

attackSuite(idsUpTo(MAX_NODES))
