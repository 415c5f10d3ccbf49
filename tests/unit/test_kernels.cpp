// Every kernels against the PyTorch vectors: forward activations and gradient of one sample (a
// chunk of one), and the summed gradient of a batch (common/gradient.hpp's canonical order).
#include "../../common/gradient.hpp"
#include "../../common/kernels_registry.hpp"
#include "backend_checks.hpp"
#include "catch.hpp"
#include "vectors.hpp"

using namespace lenet;
using namespace lenet::test;

namespace {

constexpr double kRtol = 1e-5;  // forward and gradients of one sample, as the spec's issue asks

template <size_t N>
std::vector<float> vec(const float (&a)[N]) {
  return std::vector<float>(a, a + N);
}

}  // namespace

TEST_CASE("kernels: forward activations and per-sample gradients match PyTorch",
          "[vectors][lab4]") {
  const Vectors& v = Vectors::shared();
  const auto& params = v.f32("init.seed1");
  const Dataset& data = vector_train();
  for (const std::string& kernels : available_kernels()) {
    auto k = make_kernels(kernels);
    for (int s = 0; s < 4; ++s) {
      const std::string p = "sample" + std::to_string(s) + ".";
      INFO("kernels " << kernels << ", sample " << s);
      REQUIRE(data.label(s) == v.i32(p + "label")[0]);
      std::vector<float> grad(kParamCount);
      const float loss =
          train_sample(*k, params.data(), data.image(s), data.label(s), grad.data(), nullptr);
      Activations a;
      k->activations(0, a);
      CHECK(vec(a.x) == v.f32(p + "x"));  // pixel / 255 is exact: bits must agree
      CHECK(close_enough(p + "z1", vec(a.z1), v.f32(p + "z1"), kRtol));
      CHECK(close_enough(p + "a1", vec(a.a1), v.f32(p + "a1"), kRtol));
      CHECK(close_enough(p + "z2", vec(a.z2), v.f32(p + "z2"), kRtol));
      CHECK(close_enough(p + "a2", vec(a.a2), v.f32(p + "a2"), kRtol));
      CHECK(close_enough(p + "z3", vec(a.z3), v.f32(p + "z3"), kRtol));
      CHECK(close_enough(p + "p", vec(a.p), v.f32(p + "p"), kRtol));
      CHECK(close_enough(p + "loss", {loss}, v.f32(p + "loss"), kRtol));
      CHECK(close_enough(p + "grad", grad, v.f32(p + "grad"), kRtol));
    }
  }
}

TEST_CASE("kernels: the batch gradient of B = 1, 4, 7 matches PyTorch", "[vectors][lab4][batch]") {
  const Vectors& v = Vectors::shared();
  const auto& params = v.f32("init.seed1");
  const std::vector<int32_t> order{0, 1, 2, 3, 4, 5, 6};
  for (const std::string& kernels : available_kernels()) {
    auto k = make_kernels(kernels);
    for (int B : {1, 4, 7}) {
      INFO("kernels " << kernels << ", B " << B);
      std::vector<float> sum(kParamCount);
      const double loss = chunk_gradient(*k, params.data(), vector_train(), order.data(), B, {},
                                         sum.data(), nullptr);
      for (float& g : sum)
        g /= static_cast<float>(B);
      const std::string p = "step.B" + std::to_string(B) + ".";
      CHECK(close_enough(p + "grad", sum, v.f32(p + "grad"), kRtol));
      CHECK(close_enough(p + "loss", {static_cast<float>(loss / B)}, v.f32(p + "loss"), kRtol));
    }
  }
}

TEST_CASE("kernels: x is pixel / 255 as the IEEE division rounds it, for every byte", "[vectors]") {
  // The simd and lanes kernels compute it with a multiply and an FMA correction where the target
  // has FMA (common/vec/over255.hpp).
  std::vector<uint8_t> pixels(kImageSize);
  for (int i = 0; i < kImageSize; ++i)
    pixels[i] = static_cast<uint8_t>(i);  // 784 pixels: every byte value, three times over
  for (const std::string& kernels : available_kernels()) {
    auto k = make_kernels(kernels);
    const uint8_t* image = pixels.data();
    const int label = 0;
    k->set_chunk(&image, &label, 1);
    k->load_input(0);
    Activations a;
    k->activations(0, a);
    int wrong = 0;
    for (int i = 0; i < kImageSize; ++i) {
      const volatile float p = pixels[i];  // volatile: the division done here, at run time
      if (a.x[i] != p / 255.0f) ++wrong;
    }
    INFO("kernels " << kernels);
    CHECK(wrong == 0);
  }
}

TEST_CASE("kernels: unknown kernels are a clear error", "[vectors]") {
  CHECK_THROWS_WITH(make_kernels("nope"), contains("--kernels") && contains("nope"));
}
