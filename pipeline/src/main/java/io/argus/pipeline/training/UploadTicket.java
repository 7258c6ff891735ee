package io.argus.pipeline.training;

import java.nio.file.Path;

/**
 * A staged upload of weights ({@link ModelRegistryService#upload}): the 0600 file in the registry's directory the body
 * is streamed into ({@link WeightsUpload}), and the two sizes weights of the network can have (a 32- or 64-bit
 * {@code seen} count).
 *
 * @param id       names the upload when it is adopted or discarded
 * @param expected the sizes in words, for a refusal's message
 */
public record UploadTicket(String id, Path file, long shortSize, long longSize, String expected) {}
