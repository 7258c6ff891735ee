package io.argus.tools.peers;

/** Another implementation timed on the same network, weights and input in the same run. */
public interface Peer extends AutoCloseable {
    String name();

    /** Runs one forward pass over a batch of {@code n} images (already prepared); called repeatedly. */
    void forward(int n);

    @Override
    default void close() {}
}
