package io.ankusa.claimcheck.store.azure;

import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.specialized.BlockBlobAsyncClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One large pack going up as staged blocks (Put Block, a few at once) committed by one Put Block
 * List under the write's conditions ({@code If-None-Match: *} for a put-if-absent); one use.
 *
 * <p>Block ids are this upload's own (a random upload id and the block's index): two writers racing
 * on one blob name stage different blocks, so the one whose commit wins commits its own bytes, and
 * the loser's commit fails its condition. Blocks never committed are dropped by the service.
 */
final class BlockUpload {

  private static final int CONCURRENCY = 4;

  private final BlockBlobAsyncClient blob;
  private final byte[] bytes;
  private final int blockSize;
  private final String uploadId = UUID.randomUUID().toString();

  BlockUpload(BlockBlobAsyncClient blob, byte[] bytes, int blockSize) {
    this.blob = blob;
    this.bytes = bytes;
    this.blockSize = blockSize;
  }

  /** Stages every block, then commits them in order under {@code conditions} (may be null). */
  Mono<Void> commit(BlobRequestConditions conditions) {
    int blocks = (bytes.length + blockSize - 1) / blockSize;
    List<String> ids = new ArrayList<>(blocks);
    for (int i = 0; i < blocks; i++) {
      ids.add(blockId(i));
    }
    return Flux.range(0, blocks)
        .flatMap(
            i -> {
              int from = i * blockSize;
              int n = Math.min(blockSize, bytes.length - from);
              return blob.stageBlockWithResponse(
                  ids.get(i), Flux.just(ByteBuffer.wrap(bytes, from, n)), n, null, null);
            },
            CONCURRENCY)
        .then(
            Mono.defer(
                () ->
                    blob.commitBlockListWithResponse(
                        new BlockBlobCommitBlockListOptions(ids).setRequestConditions(conditions))))
        .then();
  }

  /** Base64 of a fixed-length id (every block id of a blob has the same length). */
  private String blockId(int index) {
    String raw = uploadId + "-" + String.format("%06d", index);
    return Base64.getEncoder().encodeToString(raw.getBytes(StandardCharsets.US_ASCII));
  }
}
