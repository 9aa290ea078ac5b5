// tests/kernels/test_isa.cpp — the instruction-set builds: names, which are available, and the
// override (set_isa; ATTN_KERNEL_ISA uses parse_isa's names). The numerical tests of the other
// files loop over available_isas(), so every build listed here is checked against the reference.
#include <algorithm>
#include <string>

#include "support/support.hpp"

using namespace attn_test;
namespace kn = attn::kernels;

TEST_CASE("instruction-set builds: short names parse - unknown names do not") {
  CHECK(kn::parse_isa("generic") == kn::Isa::generic);
  CHECK(kn::parse_isa("avx2") == kn::Isa::avx2);
  CHECK(kn::parse_isa("avx512") == kn::Isa::avx512);
  CHECK_FALSE(kn::parse_isa("AVX512").has_value());
  CHECK_FALSE(kn::parse_isa("").has_value());
}

TEST_CASE("instruction-set builds: the widest the CPU has is listed - any listed one can be forced") {
  IsaGuard guard;
  const std::vector<kn::Isa> isas = kn::available_isas();
  REQUIRE(!isas.empty());
  CHECK(isas.front() == kn::Isa::generic);
  CHECK(std::find(isas.begin(), isas.end(), kn::active_isa()) != isas.end());
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
  CHECK((std::find(isas.begin(), isas.end(), kn::Isa::avx2) != isas.end()) == avx2);
  CHECK((std::find(isas.begin(), isas.end(), kn::Isa::avx512) != isas.end()) == avx512);
  if (avx512) CHECK(std::string(kn::isa_name(kn::Isa::avx512)) == "avx512+fma");
  if (avx2) CHECK(std::string(kn::isa_name(kn::Isa::avx2)) == "avx2+fma");
#else
  CHECK(isas.size() == 1);
#endif
  for (kn::Isa isa : {kn::Isa::generic, kn::Isa::avx2, kn::Isa::avx512}) {
    const bool listed = std::find(isas.begin(), isas.end(), isa) != isas.end();
    INFO("isa " << isa_label(isa));
    const kn::Isa before = kn::active_isa();
    CHECK(kn::set_isa(isa) == listed);
    CHECK(kn::active_isa() == (listed ? isa : before));
    if (listed) CHECK(std::string(kn::isa_name(isa)) != "unavailable");
  }
}
