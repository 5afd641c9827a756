#include "testing/sweeps.hpp"

#include <algorithm>
#include <cstdint>

namespace flashattn::testing {
namespace {

// The shapes DESIGN.md §3 names: single rows and columns, a tall and a wide odd shape, and the
// off-by-one pair around a thousand.
struct Shape {
  int seqlen_q, seqlen_k;
};
constexpr Shape kEdgeShapes[] = {{1, 1},     {1, 239},     {239, 1},    {3, 799},
                                 {113, 203}, {1023, 1024}, {1024, 1023}};
// Tile multiples and their neighbours (the CPU and GPU tiles are 64 or 128 rows).
constexpr int kTileEdges[] = {63, 64, 65, 127, 128, 129};

// Collects the cases of one sweep: distinct seeds, and the dtypes of `caps` in turn so that every dtype
// meets every kind of case without multiplying the list.
class SweepBuilder {
 public:
  SweepBuilder(Tier tier, Op op, const Capabilities& caps) : caps_(caps) {
    seed_ = 1'000'000ull * (static_cast<std::uint64_t>(tier) + 1) + (op == Op::backward ? 500'000 : 0);
  }

  const Capabilities& caps() const { return caps_; }

  /// A dense case with the next dtype and the usual head dim (64 when built).
  Case dense(int batch, int heads, int heads_kv, int seqlen_q, int seqlen_k) {
    Case c;
    c.dtype = caps_.dtypes[rotation_++ % caps_.dtypes.size()];
    c.batch = batch;
    c.heads = heads;
    c.heads_kv = heads_kv;
    c.head_dim = usual_head_dim();
    c.seqlen_q = seqlen_q;
    c.seqlen_k = seqlen_k;
    return c;
  }

  /// A varlen case with the next dtype and the usual head dim.
  Case varlen(int heads, int heads_kv, std::vector<int> seqlens_q, std::vector<int> seqlens_k,
              std::vector<int> seqused_k = {}) {
    Case c = dense(static_cast<int>(seqlens_q.size()), heads, heads_kv, 0, 0);
    c.seqlens_q = std::move(seqlens_q);
    c.seqlens_k = std::move(seqlens_k);
    c.seqused_k = std::move(seqused_k);
    return c;
  }

  void add(Case c) {
    c.seed = seed_ + cases_.size() + 1;
    cases_.push_back(std::move(c));
  }

  std::vector<Case> take() { return std::move(cases_); }

 private:
  int usual_head_dim() const {
    const auto& dims = caps_.head_dims;
    return std::find(dims.begin(), dims.end(), 64) != dims.end() ? 64 : dims.front();
  }

  const Capabilities& caps_;
  std::uint64_t seed_ = 0;
  std::size_t rotation_ = 0;
  std::vector<Case> cases_;
};

void add_shape_edges(SweepBuilder& s) {
  for (const Shape& shape : kEdgeShapes) {
    const bool big = shape.seqlen_q > 512;  // the large ones with few heads, to stay cheap
    for (bool causal : {false, true}) {
      Case c = big ? s.dense(1, 1, 1, shape.seqlen_q, shape.seqlen_k)
                   : s.dense(2, 2, 1, shape.seqlen_q, shape.seqlen_k);
      c.causal = causal;
      s.add(c);
    }
  }
  int index = 0;
  for (int length : kTileEdges) {
    Case c = s.dense(1, 2, 2, length, length);
    c.causal = index++ % 2 == 1;
    s.add(c);
  }
  s.add(s.dense(1, 2, 1, 65, 129));
  Case tall = s.dense(1, 2, 1, 129, 63);
  tall.causal = true;
  s.add(tall);
}

void add_head_layouts(SweepBuilder& s) {
  s.add(s.dense(1, 4, 4, 77, 91));  // MHA
  s.add(s.dense(1, 6, 2, 77, 91));  // GQA
  s.add(s.dense(1, 4, 1, 77, 91));  // MQA
  Case gqa_causal = s.dense(2, 6, 3, 91, 77);
  gqa_causal.causal = true;
  s.add(gqa_causal);
  Case batched = s.dense(3, 3, 3, 31, 45);
  s.add(batched);
}

void add_head_dims(SweepBuilder& s, int seqlen_q, int seqlen_k) {
  for (DType dtype : s.caps().dtypes) {
    for (int dim : s.caps().head_dims) {
      Case c = s.dense(1, 2, 1, seqlen_q, seqlen_k);
      c.dtype = dtype;
      c.head_dim = dim;
      s.add(c);
    }
  }
  for (auto [dim, dim_v] : s.caps().head_dim_pairs) {
    Case c = s.dense(1, 2, 1, seqlen_q, seqlen_k);
    c.head_dim = dim;
    c.head_dim_v = dim_v;
    s.add(c);
  }
}

void add_masks(SweepBuilder& s) {
  // Causal with Sq > Sk: the first Sq - Sk rows keep no key.
  Case short_keys = s.dense(1, 4, 2, 40, 17);
  short_keys.causal = true;
  s.add(short_keys);
  Case tile_short_keys = s.dense(1, 2, 1, 129, 64);
  tile_short_keys.causal = true;
  s.add(tile_short_keys);

  struct Window {
    int seqlen_q, seqlen_k, left, right;
    bool causal;
  };
  constexpr Window kWindows[] = {
      {100, 100, 16, 0, false}, {100, 100, 8, 8, false}, {100, 100, -1, 5, false}, {100, 100, 0, 0, false},
      {50, 120, 20, -1, false}, {50, 20, 5, 2, false},  // Sq > Sk: rows above the band keep no key
      {150, 150, 32, -1, true},
  };
  for (const Window& w : kWindows) {
    Case c = s.dense(1, 2, 1, w.seqlen_q, w.seqlen_k);
    c.window_left = w.left;
    c.window_right = w.right;
    c.causal = w.causal;
    s.add(c);
  }
}

void add_score_options(SweepBuilder& s) {
  // Softcap where tanh bends: scores of several units against caps of 5 and 1.5.
  Case softcap = s.dense(1, 4, 2, 96, 96);
  softcap.softcap = 5.0f;
  softcap.input_scale = 2.0f;
  softcap.causal = true;
  s.add(softcap);
  Case hard_softcap = s.dense(1, 2, 2, 70, 110);
  hard_softcap.softcap = 1.5f;
  s.add(hard_softcap);

  Case alibi = s.dense(1, 2, 2, 120, 120);
  alibi.alibi = true;
  s.add(alibi);
  Case alibi_causal = s.dense(2, 4, 2, 70, 150);
  alibi_causal.alibi = true;
  alibi_causal.causal = true;
  s.add(alibi_causal);

  Case scaled = s.dense(1, 2, 1, 60, 60);
  scaled.softmax_scale = 0.3f;
  s.add(scaled);
  Case unit_scale = s.dense(1, 2, 1, 33, 65);
  unit_scale.softmax_scale = 1.0f;
  unit_scale.causal = true;
  s.add(unit_scale);
}

void add_varlen(SweepBuilder& s) {
  // Empty and length-1 sequences on both sides, a query sequence with no keys, tile edges.
  const std::vector<int> q = {0, 1, 37, 64, 5, 17};
  const std::vector<int> k = {3, 1, 50, 65, 0, 129};
  const std::vector<int> used = {2, 1, 40, 65, 0, 100};
  s.add(s.varlen(2, 1, q, k));
  Case causal = s.varlen(2, 2, q, k);
  causal.causal = true;
  s.add(causal);
  s.add(s.varlen(4, 2, q, k, used));
  Case window = s.varlen(2, 1, q, k, used);
  window.window_left = 10;
  window.window_right = 0;
  s.add(window);
  Case strided = s.varlen(4, 2, q, k, used);
  strided.strided = true;
  strided.causal = true;
  s.add(strided);
}

void add_strided(SweepBuilder& s) {
  Case plain = s.dense(2, 4, 2, 70, 90);
  plain.strided = true;
  s.add(plain);
  Case causal = s.dense(1, 2, 1, 113, 203);
  causal.strided = true;
  causal.causal = true;
  s.add(causal);
  Case options = s.dense(1, 4, 4, 65, 65);
  options.strided = true;
  options.alibi = true;
  options.softcap = 4.0f;
  options.softmax_scale = 0.2f;
  s.add(options);
}

void add_large_inputs(SweepBuilder& s) {
  constexpr Shape kShapes[] = {{128, 128}, {17, 300}, {1, 500}};
  for (const Shape& shape : kShapes) {
    Case c = s.dense(1, 2, 1, shape.seqlen_q, shape.seqlen_k);
    c.causal = shape.seqlen_q > 1 && shape.seqlen_q < shape.seqlen_k;
    c.input_scale = 5.0f;
    s.add(c);
  }
}

void add_quick(SweepBuilder& s) {
  add_shape_edges(s);
  add_head_layouts(s);
  add_head_dims(s, 40, 57);
  add_masks(s);
  add_score_options(s);
  add_varlen(s);
  add_strided(s);
  add_large_inputs(s);
}

// The GPU machine's tier: the 4224 shape, larger batches, every head dim and D != Dv pair against masks.
void add_full(SweepBuilder& s) {
  for (bool causal : {false, true}) {
    Case c = s.dense(1, 2, 1, 4224, 4224);
    c.causal = causal;
    s.add(c);
  }
  Case uneven = s.dense(1, 2, 2, 4224, 1000);
  uneven.causal = true;
  s.add(uneven);
  s.add(s.dense(8, 8, 2, 512, 512));
  Case batch_causal = s.dense(16, 4, 4, 257, 257);
  batch_causal.causal = true;
  s.add(batch_causal);
  // Every head dim and D != Dv pair against masks.
  auto add_dims = [&](int dim, int dim_v) {
    for (bool causal : {false, true}) {
      Case c = s.dense(2, 4, 2, 257, 383);
      c.head_dim = dim;
      c.head_dim_v = dim_v;
      c.causal = causal;
      c.strided = causal;
      s.add(c);
    }
    Case window = s.dense(1, 4, 1, 500, 500);
    window.head_dim = dim;
    window.head_dim_v = dim_v;
    window.window_left = 128;
    window.window_right = 0;
    s.add(window);
    // Long rows: kernels may pick other tiles when rows see many keys (e.g. the portable hd256 kernel
    // above 1024 keys per row), so every head dim also runs past that with and without causal.
    for (bool causal : {false, true}) {
      Case long_rows = s.dense(1, 2, 1, 2500, 2600);
      long_rows.head_dim = dim;
      long_rows.head_dim_v = dim_v;
      long_rows.causal = causal;
      s.add(long_rows);
    }
  };
  for (int dim : s.caps().head_dims) add_dims(dim, 0);
  for (auto [dim, dim_v] : s.caps().head_dim_pairs) add_dims(dim, dim_v);
  std::vector<int> q, k;
  for (int b = 0; b < 32; ++b) {
    q.push_back((b * 97) % 300 + (b % 5 == 0 ? 0 : 1));
    k.push_back((b * 61) % 700 + (b % 7 == 0 ? 0 : 1));
  }
  s.add(s.varlen(8, 2, q, k));
  Case varlen_causal = s.varlen(8, 8, q, k);
  varlen_causal.causal = true;
  varlen_causal.strided = true;
  s.add(varlen_causal);
  // Last query tiles with rows for only some of a tile's warpgroups (the Hopper D = 64 tile of 192 rows
  // beyond 1024 keys: 1060 = 5 * 192 + 100 leaves one of three without rows, 1200 = 6 * 192 + 48 two), dense
  // and in a varlen batch, where the rows past a sequence's end belong to the next sequence.
  Case partial_tile = s.dense(1, 2, 1, 1060, 1060);
  partial_tile.causal = true;
  s.add(partial_tile);
  Case partial_tiles = s.varlen(4, 2, {1060, 3, 1200, 1025}, {1060, 700, 1300, 1025});
  partial_tiles.causal = true;
  s.add(partial_tiles);
  Case softcap = s.dense(2, 8, 2, 1000, 1000);
  softcap.softcap = 30.0f;
  softcap.input_scale = 3.0f;
  softcap.causal = true;
  s.add(softcap);
  Case alibi = s.dense(2, 8, 8, 1000, 2000);
  alibi.alibi = true;
  s.add(alibi);
}

// Long sequences and many sequences (reruns for determinism are run by the caller).
void add_stress(SweepBuilder& s) {
  for (bool causal : {false, true}) {
    Case c = s.dense(1, 1, 1, 8192, 8192);
    c.causal = causal;
    s.add(c);
  }
  s.add(s.dense(1, 4, 1, 1, 32768));
  Case long_causal = s.dense(1, 1, 1, 16384, 16384);
  long_causal.causal = true;
  long_causal.window_left = 4096;
  s.add(long_causal);
  s.add(s.dense(256, 8, 2, 128, 128));
}

}  // namespace

const char* to_string(Tier tier) {
  switch (tier) {
    case Tier::quick:
      return "quick";
    case Tier::full:
      return "full";
    case Tier::stress:
      return "stress";
  }
  return "?";
}

Capabilities cpu_capabilities() {
  return Capabilities{
      .dtypes = {DType::fp32, DType::fp16, DType::bf16},
      .head_dims = {32, 64, 96, 128, 192, 256},
      .head_dim_pairs = {{1, 1}, {40, 72}, {192, 128}, {13, 7}},
  };
}

std::vector<Case> sweep(Tier tier, Op op, const Capabilities& caps) {
  if (caps.dtypes.empty() || caps.head_dims.empty()) return {};
  SweepBuilder builder(tier, op, caps);
  add_quick(builder);
  if (tier != Tier::quick) add_full(builder);
  if (tier == Tier::stress) add_stress(builder);
  return builder.take();
}

}  // namespace flashattn::testing
