// A program that never starts an election (as `devs init` writes one): the lab names it.
import * as ds from "@devicescript/core"

setInterval(() => console.log(":)"), 1000)
