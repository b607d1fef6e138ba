package io.llmperf4j.distributed;

import io.llmperf4j.model.RequestSpec;

import java.util.ArrayList;
import java.util.List;

/** How concurrency, rates and the workload's requests are divided between workers. */
public final class WorkloadSplit {
    private WorkloadSplit() {
    }

    /** {@code total} in {@code parts} whole shares that differ by at most one, the larger ones first. */
    public static int[] evenly(int total, int parts) {
        int[] shares = new int[parts];
        for (int i = 0; i < parts; i++) shares[i] = total / parts + (i < total % parts ? 1 : 0);
        return shares;
    }

    /**
     * Each spec to exactly one worker, {@code counts[i]} of them to worker {@code i}, interleaved in workload order
     * (so an ordered workload, short prompts first, say, is spread rather than cut into blocks): each spec goes to
     * the worker furthest behind its quota.
     */
    public static List<List<RequestSpec>> specs(List<RequestSpec> specs, int[] counts) {
        int total = 0;
        for (int c : counts) total += c;
        if (total != specs.size()) {
            throw new IllegalArgumentException("the counts (" + total + ") must add up to the specs (" + specs.size()
                    + ")");
        }
        List<List<RequestSpec>> out = new ArrayList<>();
        for (int i = 0; i < counts.length; i++) out.add(new ArrayList<>());
        for (RequestSpec spec : specs) {
            int best = -1;
            double bestFill = Double.MAX_VALUE;
            for (int i = 0; i < counts.length; i++) {
                if (out.get(i).size() >= counts[i]) continue;
                double fill = (double) out.get(i).size() / counts[i];
                if (fill < bestFill) {
                    bestFill = fill;
                    best = i;
                }
            }
            out.get(best).add(spec);
        }
        return out;
    }

    /** {@code total} split in proportion to {@code weights} (largest remainders), so the parts add up exactly. */
    public static int[] proportional(int total, int[] weights) {
        long sum = 0;
        for (int w : weights) sum += w;
        int[] out = new int[weights.length];
        double[] remainders = new double[weights.length];
        int given = 0;
        for (int i = 0; i < weights.length; i++) {
            double exact = (double) total * weights[i] / sum;
            out[i] = (int) Math.floor(exact);
            remainders[i] = exact - out[i];
            given += out[i];
        }
        for (int left = total - given; left > 0; left--) {
            int best = 0;
            for (int i = 1; i < weights.length; i++) if (remainders[i] > remainders[best]) best = i;
            out[best]++;
            remainders[best] = -1;
        }
        return out;
    }
}
