#pragma once
// The inline namespace of the current instruction-set build (Note [ISA namespaces]). Translation units built
// for one level define EMBER_ISA (default_isa, avx2, avx512); everything else is the baseline build.
#define EMBER_ISA_CAT_(a, b) a##b
#define EMBER_ISA_CAT(a, b) EMBER_ISA_CAT_(a, b)
#if defined(EMBER_ISA)
#define EMBER_ISA_NS EMBER_ISA_CAT(inl_, EMBER_ISA)
#else
#define EMBER_ISA_NS inl_base
#endif
