#pragma once
// The JIT's IR in one include: the graph (Graph.h), its text form (IRPrinter.h, IRParser.h) and the
// verifier (Verifier.h).
#include "ember/jit/ir/Graph.h"
#include "ember/jit/ir/IRParser.h"
#include "ember/jit/ir/IRPrinter.h"
#include "ember/jit/ir/Verifier.h"
