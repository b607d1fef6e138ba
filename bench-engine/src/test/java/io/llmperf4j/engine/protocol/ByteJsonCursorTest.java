package io.llmperf4j.engine.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The chunk parser's own cursor against Jackson on the same bytes: whatever the cursor answers must be what Jackson
 * answers (value or error message); everything else it must leave to Jackson.
 */
class ByteJsonCursorTest {

    private static final List<ChatCompletionChunkParser> PARSERS = List.of(new ChatCompletionChunkParser(),
            ChatCompletionChunkParser.chatResponse(), ChatCompletionChunkParser.textCompletion());

    private static final List<String> CHUNKS = List.of(
            "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1796292697,\"model\":\"m\","
                    + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                    + "\"logprobs\":null,\"finish_reason\":null}]}",
            "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1796292697,\"model\":\"m\","
                    + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" way\"},\"logprobs\":null,"
                    + "\"finish_reason\":null}]}",
            "{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}",
            "{\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":5,\"total_tokens\":7}}",
            "{\"id\":\"c\",\"choices\":[{\"delta\":{\"content\":\"H\\u00e9 \\\"q\\\"\\n\\t\\\\ \\/ \\ud83e\\udd99\"}}]}",
            "{\"choices\":[{\"delta\":{\"content\":\"Hé 镇江 🦙\"}}]}",
            "{\"choices\":[{\"delta\":{\"reasoning_content\":\"think\",\"content\":null}}]}",
            "{\"choices\":[{\"delta\":{\"reasoning\":\"r\"}},{\"delta\":{\"content\":\"second\"}}]}",
            "{\"choices\":[{\"message\":{\"content\":\"whole\"},\"finish_reason\":\"stop\"}],\"usage\":"
                    + "{\"prompt_tokens\":10,\"completion_tokens\":1.5e3}}",
            "{\"choices\":[{\"text\":\"completion\",\"finish_reason\":null,\"logprobs\":{\"tokens\":[\"a\",\"b\"],"
                    + "\"token_logprobs\":[-0.25,-1E-7,0,3.0e+2]}}]}",
            "{\"error\":{\"message\":\"overloaded\",\"code\":\"503\",\"type\":\"server_error\"}}",
            "{\"error\":{\"message\":\"x\",\"code\":429}}",
            "{\"error\":{\"message\":\"x\",\"code\":4294967296}}",
            "{\"error\":\"plain\"}",
            "{\"error\":null,\"choices\":[{\"delta\":{\"content\":\"a\"}}]}",
            "{\"usage\":{\"prompt_tokens\":12345678901,\"completion_tokens\":-3}}",
            "{\"usage\":{\"prompt_tokens\":999999999,\"completion_tokens\":0}}",
            "{\"id\":5,\"choices\":null,\"usage\":{}}",
            "{\"id\":\"a\",\"id\":\"b\",\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"choices\":[{\"delta\":{}}]}",
            "{\"choices\":[[1,2],{\"delta\":{\"content\":\"not first\"}}],\"nested\":{\"a\":[{\"b\":[true,false,null]}]}}",
            " \r\n\t{ \"choices\" : [ { \"delta\" : { \"content\" : \"spaced\" } } ] } \n",
            "{\"choices\":[{\"delta\":{\"content\":\"\\u0000\\u001f\"}}]}",
            "{\"choices\":[{\"delta\":{\"content\":\"\uFFFD\"}}]}",
            "{\"ch\\u006fices\":[{\"delta\":{\"content\":\"escaped name\"}}]}",
            "{\"choices\":[{\"delta\":{\"cöntent\":\"x\",\"content\":\"y\"}}]}");

    private static final List<String> MALFORMED = List.of("", " ", "[]", "[1]", "\"s\"", "42", "null", "{", "{}",
            "{\"a\":1}", "{\"choices\":5}", "{\"choices\":[}", "{\"choices\":[],}", "{\"choices\":[1,]}",
            "{\"choices\":[]} x", "{\"choices\":[]}{}", "{\"choices\":01}", "{\"choices\":[-]}", "{\"choices\":[1.]}",
            "{\"choices\":[1e]}", "{\"choices\":[truex]}", "{\"choices\":[nul]}", "{\"choices\":[\"a\tb\"]}",
            "{\"choices\":[\"\\x\"]}", "{\"choices\":[\"\\u12G4\"]}", "{choices:[]}", "{'choices':[]}",
            "{\"choices\":[NaN]}", "{\"choices\":[]\u00a0}", "\uFEFF{\"choices\":[]}", "{\"choices\":[\"unterminated]}",
            "{\"choices\":[{\"delta\":{\"content\":\"a\"}}]", "{\"choices\" [] }", "{\"choices\":[] \"x\":1}");

    /** The parser's answer with the given path: the chunk, or the error message. */
    private static Object answer(ChatCompletionChunkParser parser, byte[] data, boolean common) {
        try {
            return common ? parser.parseCommon(data) : parser.parseWithJackson(data);
        } catch (MalformedChunkException e) {
            return "malformed: " + e.getMessage();
        }
    }

    private static boolean sameAnswer(byte[] data) {
        boolean tookCommonPath = false;
        for (ChatCompletionChunkParser parser : PARSERS) {
            Object common = answer(parser, data, true);
            if (common == null) continue; // left to Jackson: nothing to compare
            tookCommonPath = true;
            assertEquals(answer(parser, data, false), common, () -> new String(data, StandardCharsets.UTF_8));
        }
        return tookCommonPath;
    }

    @Test
    void commonChunksTakeTheCursorAndAgreeWithJackson() {
        for (String chunk : CHUNKS) sameAnswer(chunk.getBytes(StandardCharsets.UTF_8));
        ChatCompletionChunkParser chat = new ChatCompletionChunkParser();
        for (String chunk : CHUNKS.subList(0, 4)) {
            assertNotNull(answer(chat, chunk.getBytes(StandardCharsets.UTF_8), true), chunk);
        }
    }

    @Test
    void malformedDataAgreesWithJacksonOrIsLeftToIt() {
        for (String data : MALFORMED) sameAnswer(data.getBytes(StandardCharsets.UTF_8));
        // syntax errors are always Jackson's to word
        ChatCompletionChunkParser chat = new ChatCompletionChunkParser();
        assertNull(answer(chat, "{\"choices\":[1,]}".getBytes(StandardCharsets.UTF_8), true));
        assertNull(answer(chat, new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, '"', '}'}, true));
    }

    /** Every chunk above with bytes dropped, doubled, swapped or replaced, many times over. */
    @Test
    void mutatedChunksAgreeWithJacksonOrAreLeftToIt() {
        byte[] alphabet = "{}[]:,\"\\ntrufalse0123456789.-+eE \t\r\nu\u00e9".getBytes(StandardCharsets.UTF_8);
        List<byte[]> seeds = new ArrayList<>();
        for (String chunk : CHUNKS) seeds.add(chunk.getBytes(StandardCharsets.UTF_8));
        Random random = new Random(15);
        int common = 0;
        for (int n = 0; n < 40_000; n++) {
            byte[] data = seeds.get(random.nextInt(seeds.size())).clone();
            int edits = 1 + random.nextInt(3);
            for (int e = 0; e < edits && data.length > 1; e++) {
                int at = random.nextInt(data.length);
                switch (random.nextInt(4)) {
                    case 0 -> data = splice(data, at, 1, new byte[0]);
                    case 1 -> data = splice(data, at, 0, new byte[] {data[at]});
                    case 2 -> data[at] = alphabet[random.nextInt(alphabet.length)];
                    default -> data[at] = (byte) random.nextInt(256);
                }
            }
            if (sameAnswer(data)) common++;
        }
        assertEquals(true, common > 1_000, "many mutated chunks are still common ones: " + common);
    }

    private static byte[] splice(byte[] data, int at, int remove, byte[] insert) {
        byte[] out = new byte[data.length - remove + insert.length];
        System.arraycopy(data, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(data, at + remove, out, at + insert.length, data.length - at - remove);
        return out;
    }
}
