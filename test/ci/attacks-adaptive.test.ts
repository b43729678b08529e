// The attack catalogue against every algorithm at three boards with the adaptive failure
// detector: a follower probes a late coordinator (src/firmware/probe.ts), and no recorded,
// replayed or injected frame may turn that into a change of coordinator.
import { attackSuite, idsUpTo, useFakeTimers } from "../attack-catalogue"

useFakeTimers()

attackSuite(idsUpTo(3), "adaptive")
