# Writes the shape logs of TestReportNewShapes (python3 shapes.py, in this directory).
import json
out = {}
# OpenAI Chat Completions, the shapes of openai-python's ChatCompletionMessageParam
# (developer, name, content as text parts, refusal, audio, legacy function_call
# / role function, custom tool calls, empty and non-JSON arguments).
msgs = [
 {"role":"developer","content":[{"type":"text","text":"You are a warehouse agent. Quote SKUs exactly."}],"name":"policy"},
 {"role":"user","name":"dana","content":[{"type":"text","text":"Where is pallet PAL-77310?"},{"type":"text","text":"It left dock 4 this morning."}]},
 {"role":"assistant","content":None,"function_call":{"name":"locate_pallet","arguments":"{\"pallet\": \"PAL-77310\"}"}},
 {"role":"function","name":"locate_pallet","content":"{\"pallet\": \"PAL-77310\", \"bay\": \"B-1142\", \"sku\": \"SKU-55821-XL\"}"},
 {"role":"assistant","content":None,"refusal":"I can't move pallets without a supervisor code."},
 {"role":"user","content":"Supervisor code is SUP-90417. Move it to bay C-2207."},
 {"role":"assistant","content":None,"audio":{"id":"audio_abc123"},"tool_calls":[
   {"id":"call_ping","type":"function","function":{"name":"ping_scanner","arguments":""}},
   {"id":"call_move","type":"function","function":{"name":"move_pallet","arguments":"{\"pallet\": \"PAL-77310\", \"from\": \"B-1142\", \"to\": \"C-2207\", \"code\": \"SUP-90417\"}"}}]},
 {"role":"tool","tool_call_id":"call_ping","content":[{"type":"text","text":"scanner online"}]},
 {"role":"tool","tool_call_id":"call_move","content":"moved; ticket MV-310552"},
 {"role":"assistant","content":[{"type":"refusal","refusal":"I will not print the supervisor code."}],"tool_calls":[
   {"id":"call_note","type":"custom","custom":{"name":"write_note","input":"ticket MV-310552: PAL-77310 now in C-2207"}},
   {"id":"call_raw","type":"function","function":{"name":"label_printer","arguments":"print SKU-55821-XL x2"}}]},
 {"role":"tool","tool_call_id":"call_note","content":"noted"},
 {"role":"tool","tool_call_id":"call_raw","content":"printed"},
 {"role":"assistant","audio":{"id":"audio_def456","transcript":"Done: ticket MV-310552."},"content":None}
]
out["openai_chat_shapes.json"] = json.dumps({"model":"gpt-4o-audio-preview","n":1,"messages":msgs}, indent=1)
open("openai_chat_shapes.json","w").write(out["openai_chat_shapes.json"])
# Anthropic Messages request body: system as blocks with cache_control,
# server tools (web search), MCP connector blocks, citations, search_result
# blocks in a tool result, container_upload, a tool result holding an image.
png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
body = {
 "model":"claude-sonnet-4-5","max_tokens":2048,
 "system":[{"type":"text","text":"You are a release engineer for the billing service.","cache_control":{"type":"ephemeral"}},
           {"type":"text","text":"Cite sources for facts from the web."}],
 "messages":[
  {"role":"user","content":[
    {"type":"text","text":"Is CVE-2025-31337 fixed in libxml2 2.13.6? Then check our build 4.18.2-rc3.","cache_control":{"type":"ephemeral"}},
    {"type":"container_upload","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}]},
  {"role":"assistant","content":[
    {"type":"server_tool_use","id":"srvtoolu_01WYG3ziw53XMcoyKL4XcZmE","name":"web_search","input":{"query":"CVE-2025-31337 libxml2 fixed version"}},
    {"type":"web_search_tool_result","tool_use_id":"srvtoolu_01WYG3ziw53XMcoyKL4XcZmE","content":[
      {"type":"web_search_result","url":"https://gitlab.gnome.org/GNOME/libxml2/-/releases/v2.13.6","title":"libxml2 v2.13.6 release notes","encrypted_content":"EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5","page_age":"February 18, 2025"}]},
    {"type":"text","text":"libxml2 2.13.6 fixes it.","citations":[{"type":"web_search_result_location","url":"https://gitlab.gnome.org/GNOME/libxml2/-/releases/v2.13.6","title":"libxml2 v2.13.6 release notes","encrypted_index":"Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm","cited_text":"Fix CVE-2025-31337 in xmlSchemaIDCFillNodeTables"}]},
    {"type":"mcp_tool_use","id":"mcptoolu_014Q35RayjACSWkSj4X2yov1","name":"get_build","server_name":"ci-server","input":{"build":"4.18.2-rc3"}},
    {"type":"mcp_tool_result","tool_use_id":"mcptoolu_014Q35RayjACSWkSj4X2yov1","is_error":False,"content":[{"type":"text","text":"build 4.18.2-rc3: libxml2 2.13.4, image sha256:9be1d07a44c3"}]},
    {"type":"tool_use","id":"toolu_01A","name":"search_docs","input":{"query":"libxml2 upgrade policy"}}]},
  {"role":"user","content":[
    {"type":"tool_result","tool_use_id":"toolu_01A","content":[
      {"type":"search_result","source":"https://wiki.internal/release/deps","title":"Dependency upgrades","content":[{"type":"text","text":"Security upgrades of libxml2 ship in a patch release; tag as 4.18.3."}],"citations":{"enabled":True}},
      {"type":"text","text":"1 result"}]}]},
  {"role":"assistant","content":[
    {"type":"text","text":"The rc ships 2.13.4. I will open the upgrade."},
    {"type":"tool_use","id":"toolu_01B","name":"open_pr","input":{"title":"Bump libxml2 to 2.13.6 (CVE-2025-31337)","target":"4.18.3","base_image":"sha256:9be1d07a44c3"}}]},
  {"role":"user","content":[
    {"type":"tool_result","tool_use_id":"toolu_01B","content":[
      {"type":"text","text":"PR #8812 opened; CI screenshot attached"},
      {"type":"image","source":{"type":"base64","media_type":"image/png","data":png}}]}]},
  {"role":"assistant","content":[
    {"type":"tool_use","id":"toolu_01C","name":"request_review","input":{"pr":8812,"reviewers":["sec-team"],"note":"fixes CVE-2025-31337"}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01C","content":"review requested","is_error":False}]}
 ]}
open("anthropic_server_tools.json","w").write(json.dumps(body, indent=1))

# OpenAI Responses: request bodies, one per call (each the conversation so
# far), with reasoning items, an item_reference, custom tool calls and a
# built-in web_search_call; the last line a logged call with its response.
inst = "You triage support tickets. Use exact ticket ids."
items = [
 {"type":"message","role":"user","content":[{"type":"input_text","text":"Customer says invoice INV-448102 was charged twice."}]},
 {"type":"reasoning","id":"rs_01","summary":[{"type":"summary_text","text":"Look up the invoice first."}],"encrypted_content":"gAAAAABo"},
 {"type":"function_call","id":"fc_01","call_id":"call_A1","name":"get_invoice","arguments":"{\"invoice\":\"INV-448102\"}"},
]
lines = [{"model":"gpt-5","instructions":inst,"input":list(items),"store":False}]
items += [
 {"type":"function_call_output","call_id":"call_A1","output":"{\"invoice\":\"INV-448102\",\"charges\":[\"ch_3PqL9x\",\"ch_3PqM2a\"],\"amount\":\"129.00\"}"},
 {"type":"item_reference","id":"msg_0042"},
 {"type":"web_search_call","id":"ws_01","status":"completed","action":{"type":"search","query":"duplicate card charge refund window"}},
 {"type":"custom_tool_call","id":"ctc_01","call_id":"call_B2","name":"refund_sql","input":"UPDATE charges SET refunded = true WHERE id = 'ch_3PqM2a';"},
]
lines.append({"model":"gpt-5","instructions":inst,"input":list(items),"store":False})
items += [
 {"type":"custom_tool_call_output","call_id":"call_B2","output":"1 row updated"},
 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Refunded ch_3PqM2a.","annotations":[]}]},
 {"type":"message","role":"user","content":"Also email them the receipt."},
]
lines.append({"request":{"model":"gpt-5","instructions":inst,"input":list(items)},
  "response":{"id":"resp_01","object":"response","status":"completed","output":[
   {"type":"reasoning","id":"rs_02","summary":[]},
   {"type":"function_call","id":"fc_02","call_id":"call_C3","name":"send_email","arguments":"{\"invoice\":\"INV-448102\",\"refund\":\"ch_3PqM2a\",\"amount\":\"129.00\"}","status":"completed"}]}})
open("openai_responses_items.jsonl","w").write("\n".join(json.dumps(l) for l in lines)+"\n")

# Gateways and observability tools: LiteLLM's StandardLoggingPayload
# (messages and response), a LiteLLM_SpendLogs row (messages and response
# stored as JSON text), Langfuse's observation export (input a message
# list, output the message), Helicone's export (request_body and
# response_body); all of one conversation, one record per call.
conv = [
 {"role":"system","content":"You are a DevOps agent."},
 {"role":"user","content":"Restart the api pods in namespace prod-eu-2 that run image v3.14.1."},
]
call1 = {"role":"assistant","content":None,"tool_calls":[{"id":"call_k1","type":"function","function":{"name":"list_pods","arguments":"{\"namespace\":\"prod-eu-2\",\"image\":\"v3.14.1\"}"}}]}
res1 = {"role":"tool","tool_call_id":"call_k1","content":"api-7f9c4d-x2kq9\napi-7f9c4d-p8zt1"}
call2 = {"role":"assistant","content":None,"tool_calls":[{"id":"call_k2","type":"function","function":{"name":"delete_pod","arguments":"{\"namespace\":\"prod-eu-2\",\"pod\":\"api-7f9c4d-x2kq9\"}"}}]}
res2 = {"role":"tool","tool_call_id":"call_k2","content":"pod deleted"}
call3 = {"role":"assistant","content":None,"tool_calls":[{"id":"call_k3","type":"function","function":{"name":"delete_pod","arguments":"{\"namespace\":\"prod-eu-2\",\"pod\":\"api-7f9c4d-p8zt1\"}"}}]}
def completion(m, n=1):
    ch = [{"index":0,"message":m,"finish_reason":"tool_calls"}]
    for i in range(1,n):
        ch.append({"index":i,"message":{"role":"assistant","content":"alternative %d"%i},"finish_reason":"stop"})
    return {"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o","choices":ch}
recs = [
 {"id":"litellm-1","trace_id":"t1","call_type":"acompletion","model":"gpt-4o","status":"success","messages":conv,"response":completion(call1, n=2)},
 {"request_id":"litellm-2","call_type":"acompletion","model":"gpt-4o","messages":json.dumps(conv+[call1,res1]),"response":json.dumps(completion(call2))},
 {"id":"obs-3","type":"GENERATION","name":"chat","model":"gpt-4o","input":conv+[call1,res1,call2,res2],"output":call3},
 {"request_id":"helicone-4","model":"gpt-4o","request_body":{"model":"gpt-4o","messages":conv+[call1,res1,call2,res2,call3,{"role":"tool","tool_call_id":"call_k3","content":"pod deleted"}]},"response_body":completion({"role":"assistant","content":"Both api pods in prod-eu-2 restarted."})},
]
open("gateway_records.jsonl","w").write("\n".join(json.dumps(r) for r in recs)+"\n")

# JSON Lines as editors and exporters leave them: a byte order mark, CRLF
# line ends, blank lines, and a last line cut short.
ms = [
 {"role":"user","content":"Book table for 4 at Osteria Nove, 19:30, under Ruiz."},
 {"role":"assistant","tool_calls":[{"id":"t1","type":"function","function":{"name":"find_restaurant","arguments":"{\"name\":\"Osteria Nove\"}"}}]},
 {"role":"tool","tool_call_id":"t1","content":"{\"id\":\"rest_20417\",\"slots\":[\"19:30\",\"21:00\"]}"},
 {"role":"assistant","tool_calls":[{"id":"t2","type":"function","function":{"name":"book","arguments":"{\"restaurant\":\"rest_20417\",\"time\":\"19:30\",\"party\":4,\"name\":\"Ruiz\"}"}}]},
 {"role":"tool","tool_call_id":"t2","content":"booked: conf OSN-5521"},
]
text = "\ufeff" + "\r\n\r\n".join(json.dumps(m) for m in ms) + "\r\n\r\n" + json.dumps({"role":"assistant","content":"Booked, confirmation OSN-5521."})[:30]
open("messy_messages.jsonl","w", encoding="utf-8", newline="").write(text)
