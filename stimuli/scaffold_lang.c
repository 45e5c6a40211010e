/*
** The participant-facing texts of the starters of accept-reject,
** hive-agreement and hive-distinction in every shipped UI language:
** pages, quiz, class labels and title. Placeholders {what}, {a}, {b} and
** {preset} are filled by scaffold_fill. Button words match the runner's
** own strings of the language (verify.accept, continue, confidence.*).
*/
#include <string.h>

#include "stimuli/scaffold_int.h"

static const StarterTexts TEXTS[] = {
    {.tag = "en",
     .title = "My {preset} study ({modality})",
     .class_label = {{"Round", "Square"},
                     {"Positive", "Negative"},
                     {"Above $50K", "Below $50K"}},
     .what = {"pictures", "short texts", "short descriptions of a person"},
     .consent = "# Consent\n\n"
                "**Placeholder: replace this page with your ethics board's "
                "approved consent text.**\n\n"
                "This study is about how people understand a computer "
                "program that makes predictions. It takes about 20 "
                "minutes. You may stop at any time without giving a "
                "reason. Your answers are stored without your name.\n\n"
                "Press Continue if you agree to take part.\n",
     .task_head = "# Your task\n\n"
                  "**Placeholder: adapt these instructions to your items "
                  "and explanations.**\n\n",
     .verify_intro = "A computer program, **the model**, looks at {what} "
                     "and answers **{a}** or **{b}**. It is often right, but "
                     "**not always**. Your task is to tell whether **the "
                     "model's answer is right**.\n\n",
     .how_head = "# How it goes\n\n",
     .learn_item = "- **Learning:** examples with the true answer, the "
                   "model's answer and, for some participants, an "
                   "explanation.\n",
     .test_item = "- **Test:** an item with the model's answer (and, for "
                  "some participants, an explanation). Is the model right "
                  "or wrong?\n",
     .confidence_item = "- Then say how confident you are, from 1 "
                        "(guessing) to 4 (certain).\n",
     .verify_keys = "\nPress **F** when the model is right and **J** when "
                    "it is wrong.\n",
     .verify_debrief = "# Thank you\n\n"
                       "**Placeholder: say what the study was about and "
                       "whom to contact.**\n\n"
                       "The study compared explanations of a model's "
                       "predictions. Your answers help us learn which "
                       "explanations let people tell when a model is "
                       "wrong.\n",
     .quiz = {"What do you decide in this study?", "What the model will answer",
              "Whether the model's answer is right"},
     .shape = {"Round", "Square", "Oval", "Diamond", "Star", "Ring", "Cross",
               "Wave"},
     .topic = {"Sport", "Politics", "Science", "Music", "Food", "Travel",
               "Business", "Health"},
     .hive_task = {"A computer program, **the model**, looked at each "
                   "picture and chose one class. You see **four candidate "
                   "classes**, each with the evidence the model found for "
                   "it. Pick the candidate **the model chose**: press its "
                   "number or click it.\n\n"
                   "The first items are practice: you are told whether you "
                   "were right.\n",
                   "A computer program, **the model**, read each text and "
                   "chose its topic. You see **four candidate topics**, each "
                   "with the words the model found for it. Pick the "
                   "candidate **the model chose**: press its number or "
                   "click it.\n\n"
                   "The first items are practice: you are told whether you "
                   "were right.\n"},
     .hive_debrief = "# Thank you\n\n"
                     "**Placeholder: say what the study was about and whom "
                     "to contact.**\n\n"
                     "The candidates were the model's four most likely "
                     "classes.\n"},
    {.tag = "de",
     .title = "Meine Studie ({preset})",
     .class_label = {{"Rund", "Eckig"},
                     {"Positiv", "Negativ"},
                     {"Über 50.000 $", "Unter 50.000 $"}},
     .what = {"Bilder", "kurze Texte", "kurze Beschreibungen von Personen"},
     .consent = "# Einwilligung\n\n"
                "**Platzhalter: Ersetzen Sie diese Seite durch den von Ihrer "
                "Ethikkommission genehmigten Einwilligungstext.**\n\n"
                "In dieser Studie geht es darum, wie Menschen ein "
                "Computerprogramm verstehen, das Vorhersagen trifft. Sie "
                "dauert etwa 20 Minuten. Sie können jederzeit ohne Angabe "
                "von Gründen aufhören. Ihre Antworten werden ohne Ihren "
                "Namen gespeichert.\n\n"
                "Drücken Sie „Weiter“, wenn Sie mit der Teilnahme "
                "einverstanden sind.\n",
     .task_head = "# Ihre Aufgabe\n\n"
                  "**Platzhalter: Passen Sie diese Anleitung an Ihre "
                  "Beispiele und Erklärungen an.**\n\n",
     .verify_intro = "Ein Computerprogramm, **das Modell**, betrachtet "
                     "{what} und antwortet **{a}** oder **{b}**. Es hat oft "
                     "recht, aber **nicht immer**. Ihre Aufgabe ist es zu "
                     "beurteilen, ob **die Antwort des Modells richtig "
                     "ist**.\n\n",
     .how_head = "# Ablauf\n\n",
     .learn_item = "- **Lernen:** Beispiele mit der richtigen Antwort, der "
                   "Antwort des Modells und, für einen Teil der "
                   "Teilnehmenden, einer Erklärung.\n",
     .test_item = "- **Test:** ein Beispiel mit der Antwort des Modells "
                  "(und, für einen Teil der Teilnehmenden, einer "
                  "Erklärung). Hat das Modell recht oder irrt es sich?\n",
     .confidence_item = "- Geben Sie danach an, wie sicher Sie sind, von 1 "
                        "(geraten) bis 4 (sicher).\n",
     .verify_keys = "\nDrücken Sie **F**, wenn das Modell recht hat, und "
                    "**J**, wenn es sich irrt.\n",
     .verify_debrief = "# Vielen Dank\n\n"
                       "**Platzhalter: Sagen Sie, worum es in der Studie "
                       "ging und an wen man sich wenden kann.**\n\n"
                       "Die Studie hat Erklärungen der Vorhersagen eines "
                       "Modells verglichen. Ihre Antworten zeigen uns, mit "
                       "welchen Erklärungen Menschen erkennen, wann sich ein "
                       "Modell irrt.\n",
     .quiz = {"Was beurteilen Sie in dieser Studie?",
              "Was das Modell antworten wird",
              "Ob die Antwort des Modells richtig ist"},
     .shape = {"Kreis", "Quadrat", "Oval", "Raute", "Stern", "Ring", "Kreuz",
               "Welle"},
     .topic = {"Sport", "Politik", "Wissenschaft", "Musik", "Essen", "Reisen",
               "Wirtschaft", "Gesundheit"},
     .hive_task = {"Ein Computerprogramm, **das Modell**, hat jedes Bild "
                   "betrachtet und eine Klasse gewählt. Sie sehen **vier "
                   "mögliche Klassen**, jede mit den Hinweisen, die das "
                   "Modell für sie gefunden hat. Wählen Sie die Klasse, "
                   "**die das Modell gewählt hat**: Drücken Sie ihre Nummer "
                   "oder klicken Sie darauf.\n\n"
                   "Die ersten Beispiele dienen der Übung: Sie erfahren, ob "
                   "Ihre Antwort richtig war.\n",
                   "Ein Computerprogramm, **das Modell**, hat jeden Text "
                   "gelesen und sein Thema gewählt. Sie sehen **vier "
                   "mögliche Themen**, jedes mit den Wörtern, die das Modell "
                   "dafür gefunden hat. Wählen Sie das Thema, **das das "
                   "Modell gewählt hat**: Drücken Sie seine Nummer oder "
                   "klicken Sie darauf.\n\n"
                   "Die ersten Beispiele dienen der Übung: Sie erfahren, ob "
                   "Ihre Antwort richtig war.\n"},
     .hive_debrief = "# Vielen Dank\n\n"
                     "**Platzhalter: Sagen Sie, worum es in der Studie ging "
                     "und an wen man sich wenden kann.**\n\n"
                     "Die vier Möglichkeiten waren die vier "
                     "wahrscheinlichsten Klassen des Modells.\n"},
    {.tag = "fr",
     .title = "Mon étude ({preset})",
     .class_label = {{"Rond", "Carré"},
                     {"Positif", "Négatif"},
                     {"Plus de 50 000 $", "Moins de 50 000 $"}},
     .what = {"des images", "des textes courts",
              "de courtes descriptions de personnes"},
     .consent = "# Consentement\n\n"
                "**Texte provisoire : remplacez cette page par le texte de "
                "consentement approuvé par votre comité d'éthique.**\n\n"
                "Cette étude porte sur la manière dont les gens comprennent "
                "un programme informatique qui fait des prédictions. Elle "
                "dure environ 20 minutes. Vous pouvez arrêter à tout moment "
                "sans donner de raison. Vos réponses sont enregistrées sans "
                "votre nom.\n\n"
                "Appuyez sur « Continuer » si vous acceptez de participer.\n",
     .task_head = "# Votre tâche\n\n"
                  "**Texte provisoire : adaptez ces consignes à vos exemples "
                  "et à vos explications.**\n\n",
     .verify_intro = "Un programme informatique, **le modèle**, examine "
                     "{what} et répond **{a}** ou **{b}**. Il a souvent "
                     "raison, mais **pas toujours**. Votre tâche est de dire "
                     "si **la réponse du modèle est juste**.\n\n",
     .how_head = "# Déroulement\n\n",
     .learn_item = "- **Apprentissage :** des exemples avec la bonne "
                   "réponse, la réponse du modèle et, pour certains "
                   "participants, une explication.\n",
     .test_item = "- **Test :** un exemple avec la réponse du modèle (et, "
                  "pour certains participants, une explication). Le modèle "
                  "a-t-il raison ou se trompe-t-il ?\n",
     .confidence_item = "- Indiquez ensuite votre degré de certitude, de 1 "
                        "(au hasard) à 4 (certain).\n",
     .verify_keys = "\nAppuyez sur **F** quand le modèle a raison et sur "
                    "**J** quand il se trompe.\n",
     .verify_debrief = "# Merci\n\n"
                       "**Texte provisoire : dites sur quoi portait l'étude "
                       "et qui contacter.**\n\n"
                       "L'étude comparait des explications des prédictions "
                       "d'un modèle. Vos réponses nous aident à savoir "
                       "quelles explications permettent de voir quand un "
                       "modèle se trompe.\n",
     .quiz = {"Que décidez-vous dans cette étude ?",
              "Ce que le modèle va répondre",
              "Si la réponse du modèle est juste"},
     .shape = {"Rond", "Carré", "Ovale", "Losange", "Étoile", "Anneau", "Croix",
               "Vague"},
     .topic = {"Sport", "Politique", "Science", "Musique", "Cuisine", "Voyage",
               "Économie", "Santé"},
     .hive_task = {"Un programme informatique, **le modèle**, a examiné "
                   "chaque image et choisi une classe. Vous voyez **quatre "
                   "classes candidates**, chacune avec les indices que le "
                   "modèle a trouvés pour elle. Choisissez la classe **que "
                   "le modèle a choisie** : appuyez sur son numéro ou "
                   "cliquez dessus.\n\n"
                   "Les premiers exemples servent d'entraînement : on vous "
                   "dit si vous aviez raison.\n",
                   "Un programme informatique, **le modèle**, a lu chaque "
                   "texte et choisi son thème. Vous voyez **quatre thèmes "
                   "candidats**, chacun avec les mots que le modèle a "
                   "trouvés pour lui. Choisissez le thème **que le modèle a "
                   "choisi** : appuyez sur son numéro ou cliquez dessus.\n\n"
                   "Les premiers exemples servent d'entraînement : on vous "
                   "dit si vous aviez raison.\n"},
     .hive_debrief = "# Merci\n\n"
                     "**Texte provisoire : dites sur quoi portait l'étude et "
                     "qui contacter.**\n\n"
                     "Les candidats étaient les quatre classes les plus "
                     "probables selon le modèle.\n"},
    {.tag = "es",
     .title = "Mi estudio ({preset})",
     .class_label = {{"Redondo", "Cuadrado"},
                     {"Positivo", "Negativo"},
                     {"Más de 50 000 $", "Menos de 50 000 $"}},
     .what = {"imágenes", "textos breves", "descripciones breves de personas"},
     .consent = "# Consentimiento\n\n"
                "**Texto provisional: sustituya esta página por el texto de "
                "consentimiento aprobado por su comité de ética.**\n\n"
                "Este estudio trata de cómo las personas entienden un "
                "programa informático que hace predicciones. Dura unos 20 "
                "minutos. Puede dejarlo en cualquier momento sin dar "
                "explicaciones. Sus respuestas se guardan sin su nombre.\n\n"
                "Pulse «Continuar» si acepta participar.\n",
     .task_head = "# Su tarea\n\n"
                  "**Texto provisional: adapte estas instrucciones a sus "
                  "ejemplos y explicaciones.**\n\n",
     .verify_intro = "Un programa informático, **el modelo**, examina "
                     "{what} y responde **{a}** o **{b}**. A menudo acierta, "
                     "pero **no siempre**. Su tarea es decir si **la "
                     "respuesta del modelo es correcta**.\n\n",
     .how_head = "# Cómo funciona\n\n",
     .learn_item = "- **Aprendizaje:** ejemplos con la respuesta correcta, "
                   "la respuesta del modelo y, para algunos participantes, "
                   "una explicación.\n",
     .test_item = "- **Prueba:** un ejemplo con la respuesta del modelo (y, "
                  "para algunos participantes, una explicación). ¿Acierta "
                  "el modelo o se equivoca?\n",
     .confidence_item = "- Después indique qué seguridad tiene, de 1 (al "
                        "azar) a 4 (seguro).\n",
     .verify_keys = "\nPulse **F** cuando el modelo acierte y **J** cuando se "
                    "equivoque.\n",
     .verify_debrief = "# Gracias\n\n"
                       "**Texto provisional: explique de qué trataba el "
                       "estudio y a quién dirigirse.**\n\n"
                       "El estudio comparaba explicaciones de las "
                       "predicciones de un modelo. Sus respuestas nos ayudan "
                       "a saber qué explicaciones permiten reconocer cuándo "
                       "se equivoca un modelo.\n",
     .quiz = {"¿Qué decide usted en este estudio?",
              "Lo que responderá el modelo",
              "Si la respuesta del modelo es correcta"},
     .shape = {"Círculo", "Cuadrado", "Óvalo", "Rombo", "Estrella", "Anillo",
               "Cruz", "Onda"},
     .topic = {"Deporte", "Política", "Ciencia", "Música", "Comida", "Viajes",
               "Economía", "Salud"},
     .hive_task = {"Un programa informático, **el modelo**, examinó cada "
                   "imagen y eligió una clase. Verá **cuatro clases "
                   "candidatas**, cada una con los indicios que el modelo "
                   "encontró para ella. Elija la clase **que eligió el "
                   "modelo**: pulse su número o haga clic en ella.\n\n"
                   "Los primeros ejemplos son de práctica: se le dirá si "
                   "acertó.\n",
                   "Un programa informático, **el modelo**, leyó cada texto "
                   "y eligió su tema. Verá **cuatro temas candidatos**, cada "
                   "uno con las palabras que el modelo encontró para él. "
                   "Elija el tema **que eligió el modelo**: pulse su número "
                   "o haga clic en él.\n\n"
                   "Los primeros ejemplos son de práctica: se le dirá si "
                   "acertó.\n"},
     .hive_debrief = "# Gracias\n\n"
                     "**Texto provisional: explique de qué trataba el "
                     "estudio y a quién dirigirse.**\n\n"
                     "Los candidatos eran las cuatro clases más probables "
                     "según el modelo.\n"},
    {.tag = "zh-Hans",
     .title = "我的研究（{preset}）",
     .class_label = {{"圆形", "方形"},
                     {"正面", "负面"},
                     {"高于5万美元", "低于5万美元"}},
     .what = {"图片", "短文本", "对一个人的简短描述"},
     .consent = "# 知情同意\n\n"
                "**占位文字：请用伦理委员会批准的知情同意书替换本页。**\n\n"
                "本研究关注人们如何理解一个会做出预测的计算机程序。整个过程"
                "约需 20 分钟。您可以随时退出，无需说明理由。您的回答将以匿名"
                "方式保存。\n\n"
                "如果您同意参加，请点击“继续”。\n",
     .task_head = "# 您的任务\n\n"
                  "**占位文字：请根据您的题目和解释修改这些说明。**\n\n",
     .verify_intro = "一个计算机程序，即**模型**，会查看{what}，并回答"
                     "“{a}”或“{b}”。它经常是对的，但**并不总是对的**。"
                     "您的任务是判断**模型的回答是否正确**。\n\n",
     .how_head = "# 流程\n\n",
     .learn_item = "- **学习：**一些示例，附有正确答案、模型的回答，部分参与者"
                   "还会看到一个解释。\n",
     .test_item = "- **测试：**一个题目及模型的回答（部分参与者还会看到一个"
                  "解释）。模型是对的还是错的？\n",
     .confidence_item = "- 然后说明您有多确定，从 1（猜测）到 4（确定）。\n",
     .verify_keys = "\n模型正确时请按 **F**，模型错误时请按 **J**。\n",
     .verify_debrief = "# 感谢参与\n\n"
                       "**占位文字：请说明本研究的目的以及联系方式。**\n\n"
                       "本研究比较了对模型预测的不同解释。您的回答帮助我们"
                       "了解哪些解释能让人看出模型何时出错。\n",
     .quiz = {"在本研究中您要判断什么？", "模型会给出什么回答",
              "模型的回答是否正确"},
     .shape = {"圆形", "方形", "椭圆", "菱形", "星形", "圆环", "十字", "波浪"},
     .topic = {"体育", "政治", "科学", "音乐", "美食", "旅行", "商业", "健康"},
     .hive_task = {"一个计算机程序，即**模型**，查看了每张图片并选择了一个"
                   "类别。您会看到**四个候选类别**，每个都附有模型为它找到的"
                   "依据。请选出**模型所选的类别**：按下它的数字或点击它。\n\n"
                   "前几个题目是练习：您会得知自己是否答对。\n",
                   "一个计算机程序，即**模型**，阅读了每段文本并选择了它的"
                   "主题。您会看到**四个候选主题**，每个都附有模型为它找到的"
                   "词语。请选出**模型所选的主题**：按下它的数字或点击它。\n\n"
                   "前几个题目是练习：您会得知自己是否答对。\n"},
     .hive_debrief = "# 感谢参与\n\n"
                     "**占位文字：请说明本研究的目的以及联系方式。**\n\n"
                     "候选项是模型认为可能性最大的四个类别。\n"},
    {.tag = "ja",
     .title = "私の研究（{preset}）",
     .class_label = {{"丸", "四角"},
                     {"ポジティブ", "ネガティブ"},
                     {"5万ドル超", "5万ドル以下"}},
     .what = {"画像", "短い文章", "人物についての短い説明"},
     .consent = "# 同意について\n\n"
                "**仮の文章：このページを倫理委員会の承認を受けた同意文に"
                "置き換えてください。**\n\n"
                "この研究は、予測を行うコンピュータープログラムを人がどのよ"
                "うに理解するかを調べるものです。所要時間は約20分です。理由を"
                "述べることなく、いつでも参加をやめることができます。回答は"
                "お名前と結びつけずに保存されます。\n\n"
                "参加に同意される場合は「次へ」を押してください。\n",
     .task_head = "# あなたの課題\n\n"
                  "**仮の文章：この説明を、お使いの項目と説明に合わせて書き"
                  "換えてください。**\n\n",
     .verify_intro = "コンピュータープログラム（**モデル**）が{what}を見て、"
                     "「{a}」または「{b}」と答えます。モデルはたいてい正しい"
                     "ですが、**いつも正しいとは限りません**。あなたの課題は、"
                     "**モデルの答えが正しいかどうか**を判断することです。\n\n",
     .how_head = "# 進め方\n\n",
     .learn_item = "- **学習：**正解とモデルの答え、一部の参加者には説明も"
                   "付いた例を見ます。\n",
     .test_item = "- **テスト：**モデルの答え（一部の参加者には説明も）が付い"
                  "た項目を見ます。モデルは正しいでしょうか、間違っている"
                  "でしょうか。\n",
     .confidence_item = "- 続いて、どのくらい確信があるかを1（当て推量）から"
                        "4（確信している）で答えてください。\n",
     .verify_keys = "\nモデルが正しいときは **F**、間違っているときは **J** "
                    "を押してください。\n",
     .verify_debrief = "# ご協力ありがとうございました\n\n"
                       "**仮の文章：研究の目的と連絡先を記してください。**\n\n"
                       "この研究では、モデルの予測に対するさまざまな説明を"
                       "比較しました。あなたの回答は、どの説明があればモデル"
                       "の誤りに気づけるのかを知る手がかりになります。\n",
     .quiz = {"この研究であなたが判断することは何ですか？",
              "モデルが何と答えるか", "モデルの答えが正しいかどうか"},
     .shape = {"円", "四角", "楕円", "ひし形", "星", "輪", "十字", "波"},
     .topic = {"スポーツ", "政治", "科学", "音楽", "料理", "旅行", "ビジネス",
               "健康"},
     .hive_task = {"コンピュータープログラム（**モデル**）は、それぞれの画像"
                   "を見て一つのクラスを選びました。**四つの候補クラス**が、"
                   "モデルがそれぞれについて見つけた根拠とともに表示されま"
                   "す。**モデルが選んだ候補**を選んでください。番号キーを押"
                   "すか、クリックします。\n\n"
                   "最初のいくつかは練習です。正解だったかどうかが表示され"
                   "ます。\n",
                   "コンピュータープログラム（**モデル**）は、それぞれの文章"
                   "を読んでその話題を選びました。**四つの候補の話題**が、モ"
                   "デルがそれぞれについて見つけた語とともに表示されます。"
                   "**モデルが選んだ候補**を選んでください。番号キーを押すか、"
                   "クリックします。\n\n"
                   "最初のいくつかは練習です。正解だったかどうかが表示され"
                   "ます。\n"},
     .hive_debrief = "# ご協力ありがとうございました\n\n"
                     "**仮の文章：研究の目的と連絡先を記してください。**\n\n"
                     "候補は、モデルが最も可能性が高いと判断した四つのクラス"
                     "でした。\n"},
    {.tag = "ar",
     .title = "دراستي ({preset})",
     .class_label = {{"دائري", "مربع"},
                     {"إيجابي", "سلبي"},
                     {"أكثر من 50 ألف دولار", "أقل من 50 ألف دولار"}},
     .what = {"صورًا", "نصوصًا قصيرة", "أوصافًا قصيرة لأشخاص"},
     .consent = "# الموافقة\n\n"
                "**نص مؤقت: استبدل بهذه الصفحة نص الموافقة الذي اعتمدته لجنة "
                "الأخلاقيات لديك.**\n\n"
                "تتناول هذه الدراسة كيف يفهم الناس برنامجًا حاسوبيًا يقدّم "
                "تنبؤات. تستغرق نحو 20 دقيقة. يمكنك التوقف في أي وقت دون "
                "إبداء أي سبب. تُحفظ إجاباتك دون اسمك.\n\n"
                "اضغط «متابعة» إذا كنت توافق على المشاركة.\n",
     .task_head = "# مهمتك\n\n"
                  "**نص مؤقت: عدّل هذه التعليمات لتناسب أمثلتك "
                  "وتفسيراتك.**\n\n",
     .verify_intro = "يفحص برنامج حاسوبي، هو **النموذج**، {what} ويجيب "
                     "**{a}** أو **{b}**. غالبًا ما يكون مُحقًا، لكن **ليس "
                     "دائمًا**. مهمتك أن تحكم هل **إجابة النموذج "
                     "صحيحة**.\n\n",
     .how_head = "# سير الدراسة\n\n",
     .learn_item = "- **التعلّم:** أمثلة مع الإجابة الصحيحة وإجابة النموذج، "
                   "ومع تفسير لبعض المشاركين.\n",
     .test_item = "- **الاختبار:** مثال مع إجابة النموذج (ومع تفسير لبعض "
                  "المشاركين). هل النموذج مُحق أم مُخطئ؟\n",
     .confidence_item = "- ثم بيّن مدى تأكدك، من 1 (تخمين) إلى 4 (متأكد).\n",
     .verify_keys = "\nاضغط **F** عندما يكون النموذج مُحقًا و**J** عندما "
                    "يكون مُخطئًا.\n",
     .verify_debrief = "# شكرًا لك\n\n"
                       "**نص مؤقت: اذكر موضوع الدراسة والجهة التي يمكن "
                       "التواصل معها.**\n\n"
                       "قارنت الدراسة بين تفسيرات لتنبؤات نموذج. تساعدنا "
                       "إجاباتك على معرفة التفسيرات التي تمكّن الناس من "
                       "إدراك متى يخطئ النموذج.\n",
     .quiz = {"ما الذي تحكم عليه في هذه الدراسة؟", "ما سيجيب به النموذج",
              "هل إجابة النموذج صحيحة"},
     .shape = {"دائرة", "مربع", "شكل بيضاوي", "معيّن", "نجمة", "حلقة", "صليب",
               "موجة"},
     .topic = {"رياضة", "سياسة", "علوم", "موسيقى", "طعام", "سفر", "أعمال",
               "صحة"},
     .hive_task = {"فحص برنامج حاسوبي، هو **النموذج**، كل صورة واختار فئة "
                   "واحدة. سترى **أربع فئات مرشّحة**، كلٌّ منها مع الدلائل "
                   "التي وجدها النموذج لها. اختر الفئة **التي اختارها "
                   "النموذج**: اضغط رقمها أو انقر عليها.\n\n"
                   "الأمثلة الأولى للتدريب: ستعرف هل كانت إجابتك صحيحة.\n",
                   "قرأ برنامج حاسوبي، هو **النموذج**، كل نص واختار "
                   "موضوعه. سترى **أربعة مواضيع مرشّحة**، كلٌّ منها مع "
                   "الكلمات التي وجدها النموذج له. اختر الموضوع **الذي "
                   "اختاره النموذج**: اضغط رقمه أو انقر عليه.\n\n"
                   "الأمثلة الأولى للتدريب: ستعرف هل كانت إجابتك صحيحة.\n"},
     .hive_debrief = "# شكرًا لك\n\n"
                     "**نص مؤقت: اذكر موضوع الدراسة والجهة التي يمكن التواصل "
                     "معها.**\n\n"
                     "كانت الخيارات المرشّحة أرجح أربع فئات في نظر "
                     "النموذج.\n"},
};

const StarterTexts *scaffold_texts(const char *tag)
{
    for (size_t i = 0; i < sizeof TEXTS / sizeof *TEXTS; i++) {
        if (strcmp(TEXTS[i].tag, tag ? tag : "en") == 0) {
            return &TEXTS[i];
        }
    }
    return NULL;
}

void scaffold_fill(SimBuf *b, const char *tmpl, const char *const vars[][2],
                   size_t n_vars)
{
    const char *p = tmpl;
    while (*p) {
        const char *open = strchr(p, '{');
        if (!open) {
            sim_buf_puts(b, p);
            return;
        }
        sim_buf_append(b, p, (size_t)(open - p));
        const char *close = strchr(open, '}');
        int done = 0;
        for (size_t i = 0; close && i < n_vars && !done; i++) {
            size_t len = strlen(vars[i][0]);
            if ((size_t)(close - open - 1) == len &&
                strncmp(open + 1, vars[i][0], len) == 0) {
                sim_buf_puts(b, vars[i][1]);
                p = close + 1;
                done = 1;
            }
        }
        if (!done) {
            sim_buf_append(b, open, 1);
            p = open + 1;
        }
    }
}
